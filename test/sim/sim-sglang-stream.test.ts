// The simulator's SGLang streaming chat over a real socket is driven by its engine, as the vLLM route is:
// streamed logprobs are those of the weight version that sampled each token (the same as a non-streaming
// answer after the same weight update), [DONE] goes out only once the engine has finished the generation
// (even when the parsers hold chunks back), and an abort that lands late in the generation still ends the
// stream with SGLang's abort finish.
import { afterAll, describe, expect, it } from 'vitest';
import type { EngineMetricsSnapshot } from '../../src/sim/engine/engine-metrics.js';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import type { PolicyTurn } from '../../src/sim/policy.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import type { SglangChatCompletionWire } from '../../src/upstream/engines/sglang-api-types.js';
import type { ChatCompletionChunkWire } from '../../src/upstream/vllm-api-types.js';
import { postJson, postStream } from './sim-test-client.js';
import { until } from '../helpers/until.js';
import { sseData } from '../helpers/sse-data.js';

const TOOLS = [{ type: 'function', function: { name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } } }];
/** Reasoning then a tool call: the parsers hold back `</think>`, the `<tool_call>` tags and the call's name. */
const TOOL_TURN: PolicyTurn = { reasoning: 'Look first.', toolCalls: [{ name: 'bash', arguments: { cmd: 'ls' } }] };
const TOOL_CHAT = { model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'Fix it.' }], tools: TOOLS, logprobs: true };
const LONG = 'The quick brown fox jumps over the lazy dog while the sun sets slowly behind the distant hills.';
/** Plain content without thinking: no chunk is held back, so every token's logprob is streamed. */
const TEXT_CHAT = { model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'Tell me.' }], logprobs: true, top_logprobs: 2, chat_template_kwargs: { enable_thinking: false } };

const servers: SimServer[] = [];
async function start(options: Partial<SimServerOptions>): Promise<{ sim: SimServer; root: string }> {
  const sim = await startSimServer({ policy: scriptedPolicy({ turns: [TOOL_TURN], final: { content: LONG } }), engine: 'sglang', ...options });
  servers.push(sim);
  return { sim, root: sim.url.replace(/\/v1$/, '') };
}
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

/** A streamed chat read event by event, with the engine's metrics at the moment the client saw [DONE]. */
interface StreamRead {
  chunks: ChatCompletionChunkWire[];
  done: boolean;
  engineAtDone: EngineMetricsSnapshot | null;
}

function readStream(sim: SimServer, body: unknown): { read: StreamRead; ended: Promise<void> } {
  const read: StreamRead = { chunks: [], done: false, engineAtDone: null };
  const ended = (async () => {
    const response = await fetch(`${sim.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for await (const data of sseData(response)) {
      if (data === '[DONE]') {
        read.done = true;
        read.engineAtDone = sim.engine.metrics();
      } else read.chunks.push(JSON.parse(data) as ChatCompletionChunkWire);
    }
  })();
  return { read, ended };
}

function streamedLogprobs(chunks: readonly ChatCompletionChunkWire[]): unknown[] {
  return chunks.flatMap((chunk) => chunk.choices[0]?.logprobs?.content ?? []);
}

describe('SGLang streaming chat follows the engine', () => {
  it('after /update_weights_from_disk the stream carries the new weights\' logprobs, as the non-streaming answer does', async () => {
    const { sim, root } = await start({});
    const before = (await postJson(`${sim.url}/chat/completions`, TEXT_CHAT)).json as SglangChatCompletionWire;
    expect((await postJson(`${root}/update_weights_from_disk`, { model_path: '/ckpt/1', weight_version: 'step-1' })).status).toBe(200);
    const after = (await postJson(`${sim.url}/chat/completions`, TEXT_CHAT)).json as SglangChatCompletionWire;
    expect(after.metadata).toEqual({ weight_version: 'step-1' });
    const afterLogprobs = after.choices[0]?.logprobs?.content ?? [];
    // Same tokens, new weights: other logprobs (else the comparison below proves nothing).
    expect(afterLogprobs.map((entry) => entry.token)).toEqual(before.choices[0]?.logprobs?.content?.map((entry) => entry.token));
    expect(afterLogprobs.map((entry) => entry.logprob)).not.toEqual(before.choices[0]?.logprobs?.content?.map((entry) => entry.logprob));
    const streamed = await postStream(`${sim.url}/chat/completions`, { ...TEXT_CHAT, stream: true });
    expect(streamed.done).toBe(true);
    expect(streamedLogprobs(streamed.chunks)).toEqual(afterLogprobs);
    expect(sim.engine.metrics().weightVersion).toBe(1);
  });

  it('[DONE] goes out only once the engine has finished the generation, though the parsers held chunks back', async () => {
    const { sim } = await start({ latency: { firstTokenMs: 5, perTokenMs: 20 } });
    const { read, ended } = readStream(sim, { ...TOOL_CHAT, stream: true, stream_options: { include_usage: true } });
    await ended;
    expect(read.done).toBe(true);
    const usage = read.chunks.at(-1)?.usage;
    expect(read.chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]).toMatchObject({ finish_reason: 'tool_calls', matched_stop: 151645 });
    // Held-back chunks are not sent (no ids on SGLang streams), yet the engine produced every token first.
    expect(streamedLogprobs(read.chunks).length).toBeLessThan(usage!.completion_tokens);
    expect(read.engineAtDone).toMatchObject({ running: 0, waiting: 0, generationTokens: usage!.completion_tokens, finished: { stop: 1, length: 0, abort: 0 } });
  });

  it('an abort late in the generation (after the held-back chunks) ends the stream with SGLang\'s abort finish', async () => {
    // 150 ms a token: the abort has 8 tokens (1.2 s) to land in, room enough on a loaded machine.
    const { sim, root } = await start({ latency: { firstTokenMs: 5, perTokenMs: 150 } });
    const total = ((await postJson(`${sim.url}/chat/completions`, TOOL_CHAT)).json as SglangChatCompletionWire).usage!.completion_tokens;
    const baseline = sim.engine.metrics().generationTokens;
    const { read, ended } = readStream(sim, { ...TOOL_CHAT, stream: true, stream_options: { include_usage: true } });
    // Eight tokens before the end: inside the tool call's arguments, well past every held-back chunk.
    await until(() => sim.engine.metrics().generationTokens - baseline >= total - 8, 'the engine to reach the tool call arguments');
    expect((await postJson(`${root}/pause_generation`, { mode: 'abort' })).status).toBe(200);
    await ended;
    expect(read.done).toBe(true);
    expect(read.chunks.at(-1)?.choices).toEqual([{ index: 0, delta: {}, finish_reason: 'abort', matched_stop: null }]);
    expect(read.chunks.filter((chunk) => chunk.choices[0]?.finish_reason)).toHaveLength(1);
    expect(sim.engine.metrics().finished.abort).toBe(1);
  });
});
