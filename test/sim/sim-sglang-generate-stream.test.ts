// The simulator's streamed /generate over a real socket, in each release's shape (stream-output), with SGLang's
// flaws on request: outputs that queue up (stream-backlog: coalesced, or dropped from output_ids in the legacy
// shape while the logprob entries keep every id), a refusal sent after HTTP 200, a connection cut without
// [DONE], -inf logprobs written as null, and the per-chunk weight_version label across an in-place (or retract)
// pause and a weight update (plus the scheduler's per-token spans with weight-version-spans).
import { afterAll, describe, expect, it } from 'vitest';
import { parseSimSpec } from '../../src/sim/parse-sim-spec.js';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import { sampledLogprob } from '../../src/sim/synthetic-logprobs.js';
import type { SglangGenerateWire } from '../../src/upstream/engines/sglang-api-types.js';
import { until } from '../helpers/until.js';
import { postJson } from './sim-test-client.js';
import { sseData } from '../helpers/sse-data.js';

const LONG = 'The quick brown fox jumps over the lazy dog while the sun sets slowly behind the distant hills.';
const PROMPT = [151644, 872, 198, 40, 151645, 198, 151644, 77091, 198];
const servers: SimServer[] = [];
async function start(options: Partial<SimServerOptions>): Promise<{ sim: SimServer; root: string }> {
  const sim = await startSimServer({ policy: scriptedPolicy({ turns: [], final: { content: LONG } }), engine: 'sglang', ...options });
  servers.push(sim);
  return { sim, root: sim.url.replace(/\/v1$/, '') };
}
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

interface Streamed {
  status: number;
  chunks: (SglangGenerateWire & { error?: { message: string } })[];
  done: boolean;
  /** The connection ended without a complete answer. */
  cut: boolean;
}

/** Reads a streamed /generate as it comes; `during(chunks)` runs after each event. */
async function stream(root: string, body: Record<string, unknown> = {}, during?: (chunks: Streamed['chunks']) => Promise<void> | void): Promise<Streamed> {
  const response = await fetch(`${root}/generate`, { method: 'POST', body: JSON.stringify({ input_ids: PROMPT, sampling_params: { max_new_tokens: 512, temperature: 1 }, return_logprob: true, stream: true, ...body }) });
  const read: Streamed = { status: response.status, chunks: [], done: false, cut: false };
  try {
    for await (const data of sseData(response)) {
      if (data === '[DONE]') read.done = true;
      else read.chunks.push(JSON.parse(data) as Streamed['chunks'][number]);
      await during?.(read.chunks);
    }
  } catch {
    read.cut = true;
  }
  return read;
}

/** The whole answer, for comparison. */
async function whole(root: string): Promise<SglangGenerateWire> {
  return (await postJson(`${root}/generate`, { input_ids: PROMPT, sampling_params: { max_new_tokens: 512, temperature: 1 }, return_logprob: true })).json as SglangGenerateWire;
}

describe('the simulator streams /generate as SGLang does', () => {
  it('cumulative (newer default): each chunk carries text, output_ids and logprobs so far; /get_server_info says so', async () => {
    const { root } = await start({ chunkTokens: 2 });
    const all = await whole(root);
    const { chunks, done } = await stream(root);
    expect(done).toBe(true);
    expect(chunks.length).toBe(Math.ceil(all.output_ids!.length / 2));
    for (const chunk of chunks) {
      const n = chunk.meta_info.completion_tokens;
      expect(chunk.output_ids).toEqual(all.output_ids!.slice(0, n));
      expect(chunk.meta_info.output_token_logprobs).toEqual(all.meta_info.output_token_logprobs!.slice(0, n));
      expect(all.text!.startsWith(chunk.text!)).toBe(true);
    }
    expect(chunks.at(-1)).toMatchObject({ text: all.text, meta_info: { finish_reason: all.meta_info.finish_reason } });
    expect(chunks.slice(0, -1).every((chunk) => chunk.meta_info.finish_reason === null)).toBe(true);
    expect(await (await fetch(`${root}/get_server_info`)).json()).toMatchObject({ stream_interval: 2, incremental_streaming_output: false });
  });

  it('incremental (--incremental-streaming-output): only what is new; queued outputs are coalesced, nothing lost', async () => {
    const { root } = await start({ sglang: { streamOutput: 'incremental', streamBacklog: 3 } });
    const all = await whole(root);
    const { chunks } = await stream(root);
    expect(chunks.length).toBeLessThan(all.output_ids!.length);
    expect(chunks.some((chunk) => chunk.output_ids!.length > 1)).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.output_ids)).toEqual(all.output_ids);
    expect(chunks.flatMap((chunk) => chunk.meta_info.output_token_logprobs)).toEqual(all.meta_info.output_token_logprobs);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(all.text);
    expect(await (await fetch(`${root}/get_server_info`)).json()).toMatchObject({ incremental_streaming_output: true });
  });

  it('legacy (0025436e): text and logprobs cumulative, output_ids incremental, and a queued output\'s ids lost to output_ids', async () => {
    const { root } = await start({ sglang: { streamOutput: 'legacy', streamBacklog: 2 } });
    const all = await whole(root);
    const { chunks } = await stream(root);
    const streamedIds = chunks.flatMap((chunk) => chunk.output_ids);
    expect(streamedIds.length).toBeLessThan(all.output_ids!.length);
    expect(chunks.every((chunk) => chunk.output_ids!.length === 1)).toBe(true);
    // The logprob entries still carry every sampled id.
    expect(chunks.at(-1)!.meta_info.output_token_logprobs!.map((entry) => entry[1])).toEqual(all.output_ids);
    expect(chunks.at(-1)!.text).toBe(all.text);
    const info = (await (await fetch(`${root}/get_server_info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ stream_output: false });
    expect(info).not.toHaveProperty('incremental_streaming_output');
  });

  it('a refused streamed request is HTTP 200 with one error event, then [DONE]', async () => {
    const { root } = await start({ maxModelLen: 64 });
    const refused = await stream(root, { sampling_params: { max_new_tokens: 100 } });
    expect(refused).toMatchObject({ status: 200, done: true, cut: false });
    expect(refused.chunks).toEqual([{ error: { message: expect.stringMatching(/exceeds the model's maximum context length of 64 tokens/) } }]);
    // Not streamed: the 400 of the same refusal.
    expect((await postJson(`${root}/generate`, { input_ids: PROMPT, sampling_params: { max_new_tokens: 100 } })).status).toBe(400);
  });

  it('drop-stream-after: the connection is cut after N tokens, without a finish and without [DONE]', async () => {
    const { root } = await start({ sglang: { dropStreamAfter: 5, streamOutput: 'incremental' } });
    const cut = await stream(root);
    expect(cut.done).toBe(false);
    expect(cut.chunks.flatMap((chunk) => chunk.output_ids)).toHaveLength(5);
    expect(cut.chunks.every((chunk) => chunk.meta_info.finish_reason === null)).toBe(true);
  });

  it('clamp-logprobs: a -inf logprob is written as null, as orjson does', async () => {
    const { root } = await start({ clampLogprobsEvery: 3 });
    const { chunks } = await stream(root);
    const entries = chunks.at(-1)!.meta_info.output_token_logprobs!;
    expect(entries.filter((entry) => entry[0] === null)).toHaveLength(Math.floor(entries.length / 3));
    expect(entries[2]![0]).toBeNull();
  });

  it.each(['in_place', 'retract'])('across a pause (%s) and a weight update: each chunk has the label when it came out, the spans say which weights sampled what', async (mode) => {
    const { sim, root } = await start({ latency: { firstTokenMs: 5, perTokenMs: 20 }, sglang: { weightVersionSpans: true, streamOutput: 'incremental' } });
    let paused = false;
    const read = stream(root, {}, async (chunks) => {
      if (paused || chunks.flatMap((chunk) => chunk.output_ids).length < 6) return;
      paused = true;
      await postJson(`${root}/pause_generation`, { mode });
    });
    await until(() => paused, 'the stream to be paused');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const frozenAt = sim.engine.metrics().generationTokens;
    await postJson(`${root}/update_weights_from_disk`, { model_path: '/ckpt/1', weight_version: '1' });
    await postJson(`${root}/continue_generation`, {});
    const { chunks } = await read;
    const ids = chunks.flatMap((chunk) => chunk.output_ids!);
    const logprobs = chunks.flatMap((chunk) => chunk.meta_info.output_token_logprobs!.map((entry) => entry[0]));
    const boundary = chunks.findIndex((chunk) => chunk.meta_info.weight_version === '1');
    const at = chunks.slice(0, boundary).flatMap((chunk) => chunk.output_ids!).length;
    expect(at).toBeGreaterThanOrEqual(6);
    expect(at).toBeLessThanOrEqual(frozenAt);
    expect(chunks.slice(boundary).every((chunk) => chunk.meta_info.weight_version === '1')).toBe(true);
    // The weights that sampled each token, from the simulator's own logprobs, change exactly there.
    expect(ids.map((id, i) => (sampledLogprob(i, id, 0) === logprobs[i] ? 0 : sampledLogprob(i, id, 1) === logprobs[i] ? 1 : -1))).toEqual(ids.map((_, i) => (i < at ? 0 : 1)));
    expect(chunks.at(-1)!.meta_info.weight_versions).toEqual([
      { version: 'default', start: 0, end: at },
      { version: '1', start: at, end: ids.length },
    ]);
  });

  it('the spec options parse', () => {
    expect(parseSimSpec('sim:noop?engine=sglang&stream-output=legacy&stream-backlog=2&weight-version-spans=true&drop-stream-after=9').options.sglang).toEqual({ streamOutput: 'legacy', streamBacklog: 2, weightVersionSpans: true, dropStreamAfter: 9 });
    expect(() => parseSimSpec('sim:noop?stream-output=sometimes')).toThrow(/expected one of cumulative, incremental, legacy/);
  });
});
