// The simulator does what current vLLM does where engine control bites (trainer-contracts.md, "vLLM behaviours
// that bite engine control"): an aborted stream ends with tool_calls once tool-call pieces went out (not for a
// named tool_choice), a request aborted before its first token gets no finish chunk (chat) or no chunk at all
// (completions), /is_sleeping is true while merely paused, /wake_up resumes a paused scheduler (frozen requests
// then generate on the old weights), /sleep pauses the scheduler, and /reset_prefix_cache answers success false
// while frozen requests hold blocks. The older behaviours stay available as options.
import { afterAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/sim/policy.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import { readResponse } from '../helpers/read-response.js';
import { until } from '../helpers/until.js';
import { sseData } from '../helpers/sse-data.js';
import { simWeightVersions } from '../helpers/sim-weight-versions.js';

const COMMAND = 'grep -rn "def handle_request" src/ | head -n 40 && python -m pytest tests/test_server.py -x -q --maxfail=1';
const policy: Policy = () => ({ toolCalls: [{ name: 'bash', arguments: { command: COMMAND } }] });
const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const CHAT = { model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'Run the tests.' }], tools, logprobs: true, return_token_ids: true, chat_template_kwargs: { enable_thinking: false } };

const servers: SimServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function start(options: Partial<SimServerOptions>): Promise<{ sim: SimServer; root: string }> {
  const sim = await startSimServer({ policy, latency: { firstTokenMs: 5, perTokenMs: 12 }, ...options });
  servers.push(sim);
  return { sim, root: sim.url.replace(/\/v1$/, '') };
}

async function post(url: string): Promise<{ status: number; json: unknown; text: string }> {
  return readResponse(await fetch(url, { method: 'POST' }));
}

async function get(url: string): Promise<unknown> {
  return (await fetch(url)).json();
}

interface Streamed {
  /** Every data payload, parsed (`[DONE]` as the string). */
  events: unknown[];
  ids: number[];
  logprobs: number[];
  toolPieces: () => number;
  finish: () => string | null;
  done: Promise<void>;
}

/** A streamed call read event by event. */
function stream(url: string, body: Record<string, unknown>): Streamed {
  const state: Streamed = { events: [], ids: [], logprobs: [], toolPieces: () => 0, finish: () => null, done: Promise.resolve() };
  let pieces = 0;
  let finish: string | null = null;
  state.toolPieces = () => pieces;
  state.finish = () => finish;
  state.done = (async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
    for await (const data of sseData(response)) {
      if (data === '[DONE]') {
        state.events.push(data);
        continue;
      }
      const event = JSON.parse(data) as { choices: { delta?: { tool_calls?: unknown[] }; token_ids?: number[]; logprobs?: { content?: { logprob: number }[] } | null; finish_reason?: string | null }[] };
      state.events.push(event);
      const choice = event.choices[0];
      if (choice?.delta?.tool_calls) pieces += 1;
      state.ids.push(...(choice?.token_ids ?? []));
      state.logprobs.push(...(choice?.logprobs?.content?.map((entry) => entry.logprob) ?? []));
      if (choice?.finish_reason) finish = choice.finish_reason;
    }
  })();
  return state;
}

describe('what an aborted stream says', () => {
  it.each([
    ['vLLM (default): tool_calls once tool pieces streamed', {}, {}, 'tool_calls'],
    ['a named tool_choice keeps abort', {}, { tool_choice: { type: 'function', function: { name: 'bash' } } }, 'abort'],
    ['streamedToolFinish "stop" (the old simulator, vLLM 006c49d): abort', { streamedToolFinish: 'stop' as const }, {}, 'abort'],
  ])('%s', async (_name, options, extra, expected) => {
    const { sim, root } = await start({ control: { devMode: true }, ...options });
    const call = stream(`${sim.url}/chat/completions`, { ...CHAT, ...extra });
    await until(() => call.toolPieces() >= 3, 'tool-call pieces');
    expect((await post(`${root}/pause?mode=abort`)).status).toBe(200);
    await call.done;
    expect(call.finish()).toBe(expected);
    expect(sim.engine.metrics().finished.abort).toBe(1);
    await post(`${root}/resume`);
  });

  it('chat: a request aborted before its first token gets its role chunk, no finish chunk, the usage and [DONE]', async () => {
    const { sim, root } = await start({ control: { devMode: true }, latency: { firstTokenMs: 60_000, perTokenMs: 1 } });
    const call = stream(`${sim.url}/chat/completions`, { ...CHAT, stream_options: { include_usage: true } });
    await until(() => sim.stats.inFlight === 1 && call.events.length === 1, 'the role chunk');
    await post(`${root}/pause?mode=abort`);
    await call.done;
    expect(call.finish()).toBeNull();
    expect(call.events).toHaveLength(3);
    expect(call.events[0]).toMatchObject({ choices: [{ delta: { role: 'assistant' } }] });
    expect(call.events[1]).toMatchObject({ choices: [], usage: { completion_tokens: 0 } });
    expect(call.events[2]).toBe('[DONE]');
  });

  it('completions: a request aborted before its first token streams no chunk at all, only [DONE]', async () => {
    const { sim, root } = await start({ control: { devMode: true }, latency: { firstTokenMs: 60_000, perTokenMs: 1 } });
    const call = stream(`${sim.url}/completions`, { model: 'polar-sim-qwen3', prompt: [151644, 872, 198, 40, 151645, 198, 151644, 77091, 198], return_token_ids: true, logprobs: 0 });
    await until(() => sim.engine.metrics().running + sim.engine.metrics().waiting === 1, 'the request to reach the engine');
    await post(`${root}/pause?mode=abort`);
    await call.done;
    expect(call.events).toEqual(['[DONE]']);
  });
});

describe('pause and sleep are one engine-core state (current vLLM)', () => {
  it('/is_sleeping is true while merely paused; /wake_up resumes the paused scheduler and the frozen request generates on the OLD weights', async () => {
    const { sim, root } = await start({ control: { devMode: true } });
    const call = stream(`${sim.url}/chat/completions`, CHAT);
    await until(() => call.ids.length >= 5, 'some tokens');
    await post(`${root}/pause?mode=keep`);
    expect(await get(`${root}/is_paused`)).toEqual({ is_paused: true });
    expect(await get(`${root}/is_sleeping`)).toEqual({ is_sleeping: true });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const frozen = call.ids.length;
    // No sleep mode needed: the executor is not asleep, so wake_up only resumes the scheduler.
    expect((await post(`${root}/wake_up`)).status).toBe(200);
    expect(await get(`${root}/is_paused`)).toEqual({ is_paused: false });
    await until(() => call.ids.length >= frozen + 3, 'the frozen request to generate again');
    await call.done;
    // The tokens after wake_up were sampled before any reload: every one on version 0.
    expect(simWeightVersions(call.ids, call.logprobs).slice(0, frozen + 3)).toEqual(new Array(frozen + 3).fill(0));
  });

  it('/reset_prefix_cache answers success false while frozen requests hold blocks, true once they are gone', async () => {
    const { sim, root } = await start({ control: { devMode: true } });
    const call = stream(`${sim.url}/chat/completions`, CHAT);
    await until(() => call.ids.length >= 3, 'some tokens');
    await post(`${root}/pause?mode=keep`);
    expect(await post(`${root}/reset_prefix_cache`)).toMatchObject({ status: 200, json: { success: false } });
    await post(`${root}/resume`);
    await call.done;
    expect(await post(`${root}/reset_prefix_cache`)).toMatchObject({ status: 200, json: { success: true } });
  });

  it('/sleep pauses the scheduler (is_paused true), /wake_up wakes and resumes it', async () => {
    const { root } = await start({ control: { devMode: true, sleepMode: true } });
    expect((await post(`${root}/sleep?level=1`)).status).toBe(200);
    expect(await get(`${root}/is_paused`)).toEqual({ is_paused: true });
    expect(await get(`${root}/is_sleeping`)).toEqual({ is_sleeping: true });
    expect((await post(`${root}/wake_up`)).status).toBe(200);
    expect(await get(`${root}/is_paused`)).toEqual({ is_paused: false });
    expect(await get(`${root}/is_sleeping`)).toEqual({ is_sleeping: false });
  });

  it('sleepPausesScheduler false (older vLLM): is_sleeping is the executor only, and wake_up does not resume a pause', async () => {
    const { sim, root } = await start({ control: { devMode: true, sleepMode: true, sleepPausesScheduler: false } });
    const call = stream(`${sim.url}/chat/completions`, CHAT);
    await until(() => call.ids.length >= 3, 'some tokens');
    await post(`${root}/pause?mode=keep`);
    expect(await get(`${root}/is_sleeping`)).toEqual({ is_sleeping: false });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const frozen = call.ids.length;
    expect((await post(`${root}/wake_up`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(call.ids.length).toBe(frozen);
    expect(await get(`${root}/is_paused`)).toEqual({ is_paused: true });
    await post(`${root}/resume`);
    await call.done;
  });
});
