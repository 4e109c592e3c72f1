// The gateway in front of an SGLang-shaped server, on real sockets with the official OpenAI SDK: chat is
// captured non-streaming upstream (return_token_ids) and relayed as a stream when the client streams;
// an answer without ids is refused; a release without chat ids still works in token-in mode through
// /generate (every call, lineage continuations and fallbacks alike), streamed when the client streams.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../src/config/sampling-policy.js';
import type { Policy } from '../../src/sim/policy.js';
import { startSimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import { runPreflight } from '../../src/upstream/preflight/run-preflight.js';
import { type GatewayStack, startGatewayStack } from '../helpers/gateway-stack.js';

const stacks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

const policy: Policy = (request) => {
  const step = request.messages.filter((m) => m.role === 'assistant').length;
  return step < 2 ? { reasoning: `Step ${step}.`, toolCalls: [{ name: 'bash', arguments: { command: `ls ${step}` } }] } : { reasoning: 'Done.', content: 'Fixed.' };
};
const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];

/** A simulator in SGLang mode, the preflight's profile handed to the gateway (as rollout and proxy do). */
async function stack(options: Partial<SimServerOptions> = {}, tokenIn = false): Promise<GatewayStack> {
  const sim = await startSimServer({ policy, engine: 'sglang', ...options });
  stacks.push(sim);
  const profile = await runPreflight({ upstreamUrl: sim.url, sampling: DEFAULT_ROLLOUT_SAMPLING, tokenIn });
  const started = await startGatewayStack({ upstreamUrl: sim.url, gateway: { profile, upstreamModel: undefined, tokenIn } });
  stacks.push(started);
  return started;
}

async function session(s: GatewayStack, stream: boolean): Promise<string[]> {
  const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Fix the bug.' }];
  const answers: string[] = [];
  for (let turn = 0; turn < 3; turn++) {
    const body = { model: 'polar-sim-qwen3', messages, tools };
    // The SDK keeps only the last delta of a field it does not know (Object.assign); Qwen Code joins them.
    let streamed = '';
    const runner = stream ? client.chat.completions.stream(body).on('chunk', (chunk) => (streamed += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? '')) : undefined;
    const completion = runner ? await runner.finalChatCompletion() : await client.chat.completions.create(body);
    const message = completion.choices[0]!.message;
    answers.push(completion.choices[0]!.finish_reason);
    // Replays the thinking as Qwen Code does (`reasoning_content`).
    const reasoning = stream ? streamed : (message as { reasoning_content?: string }).reasoning_content;
    messages.push({ role: 'assistant', content: message.content, ...(reasoning ? { reasoning_content: reasoning } : {}), ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) } as OpenAI.ChatCompletionAssistantMessageParam);
    for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok' });
  }
  return answers;
}

describe('the gateway in front of SGLang', () => {
  it.each([false, true])('client stream %s: captured through non-streaming chat with return_token_ids, engine sglang recorded', async (stream) => {
    const s = await stack();
    expect(await session(s, stream)).toEqual(['tool_calls', 'tool_calls', 'stop']);
    const calls = s.store.calls.listBySession(s.sessionId, { withRaw: true });
    expect(calls.map((call) => call.status)).toEqual(['ok', 'ok', 'ok']);
    for (const call of calls) {
      expect(call).toMatchObject({ engine: 'sglang', mode: 'chat', stream });
      expect(JSON.parse(call.raw.upstreamRequest!.toString('utf8'))).toMatchObject({ stream: false, return_token_ids: true, logprobs: true });
      expect(call.capture.tokenIds!.at(-1)).toBe(151645);
      expect(call.capture.logprobs).toHaveLength(call.capture.tokenIds!.length);
      expect(call.capture.promptTokenIds!.length).toBe(call.capture.promptTokens);
    }
    // The replayed thinking went back under SGLang's field name: the next prompt holds the sampled reasoning.
    const upstream = JSON.parse(calls[1]!.raw.upstreamRequest!.toString('utf8')) as { messages: { role: string; reasoning_content?: string }[] };
    expect(upstream.messages.find((message) => message.role === 'assistant')).toMatchObject({ reasoning_content: '\nStep 0.\n' });
    expect(upstream.messages.find((message) => message.role === 'assistant')).not.toHaveProperty('reasoning');
  });

  it('a long prompt: its per-choice ids are left unparsed for the commit worker and stored exactly', async () => {
    const s = await stack();
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
    const long = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
    await client.chat.completions.create({ model: 'polar-sim-qwen3', messages: [{ role: 'user', content: long }] });
    const [call] = s.store.calls.listBySession(s.sessionId);
    expect(call).toMatchObject({ status: 'ok', engine: 'sglang' });
    expect(call!.capture.promptTokenIds!.length).toBe(call!.capture.promptTokens);
    expect(JSON.stringify(call!.capture.promptTokenIds).length).toBeGreaterThan(4096);
  });

  it('an SGLang release without chat ids: every call refused (no_token_ids, 502) with the SGLang advice', async () => {
    const s = await startGatewayStack({ policy, sim: { engine: 'sglang', returnTokenIds: false }, gateway: { engine: 'sglang' } });
    stacks.push(s);
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
    for (const stream of [false, true]) {
      const call = stream
        ? client.chat.completions.stream({ model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion()
        : client.chat.completions.create({ model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'hi' }] });
      await expect(call).rejects.toMatchObject({ status: 502, message: expect.stringContaining('PR #30917') });
    }
    expect(s.store.calls.listBySession(s.sessionId).map((call) => [call.status, call.engine])).toEqual([
      ['no_token_ids', 'sglang'],
      ['no_token_ids', 'sglang'],
    ]);
  });

  it('token-in, streamed: a prompt over the context window, refused by SGLang after HTTP 200, reaches the client as the 400 context error it is', async () => {
    const s = await startGatewayStack({ policy, sim: { engine: 'sglang', maxModelLen: 200 }, gateway: { engine: 'sglang', tokenIn: true } });
    stacks.push(s);
    const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
    const refused = client.chat.completions.create({ model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'Fix the bug.' }], max_tokens: 300, stream: true });
    await expect(refused).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/prompt is too long: \d+ tokens > 200 maximum/) });
    const [call] = s.store.calls.listBySession(s.sessionId, { withRaw: true });
    expect(call).toMatchObject({ status: 'context_overflow', engine: 'sglang' });
    expect(JSON.parse(call!.raw.upstreamRequest!.toString('utf8'))).toMatchObject({ stream: true, sampling_params: { max_new_tokens: 300 } });
  });

  it.each([false, true])('a release without chat ids in token-in mode (client stream %s): every call goes to /generate, all ok', async (stream) => {
    const s = await stack({ returnTokenIds: false }, true);
    expect(await session(s, stream)).toEqual(['tool_calls', 'tool_calls', 'stop']);
    const calls = s.store.calls.listBySession(s.sessionId, { withRaw: true });
    expect(calls.map((call) => [call.status, call.mode, call.tokenInFallback?.reason ?? null])).toEqual([
      ['ok', 'chat', 'no-lineage'],
      ['ok', 'token_in', null],
      ['ok', 'token_in', null],
    ]);
    for (const call of calls) {
      const sent = JSON.parse(call.raw.upstreamRequest!.toString('utf8')) as { input_ids: number[]; return_logprob: boolean };
      expect(sent.input_ids).toEqual(call.capture.promptTokenIds);
      expect(sent.return_logprob).toBe(true);
    }
    const before = [...calls[0]!.capture.promptTokenIds!, ...calls[0]!.capture.tokenIds!];
    expect(calls[1]!.capture.promptTokenIds!.slice(0, before.length)).toEqual(before);
  });
});
