// Generation control through the real gateway and a simulator in vLLM dev mode, driven by the openai SDK: a
// keep pause freezes a streamed call mid-generation, a resume with reloaded weights and a new version
// continues it, and the call records where its version changed; the simulator's own logprobs prove which
// weights sampled each token, and the exported rows carry the same per-token versions. A non-streamed call
// across the same update has no observable boundary and is never trained on; an abort pause ends calls as
// engine_aborted; a sleep around a trainer step sends nothing to the engine; a LoRA loaded in place becomes the
// model calls name.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { toTrajectoryCall } from '../../src/export/to-trajectory-call.js';
import { EngineGeneration } from '../../src/rollout/engine-generation.js';
import { GenerationConflictError, GenerationController, type GenerationStepEvent } from '../../src/rollout/generation-controller.js';
import { classifySessionFailure } from '../../src/rollout/classify-session-failure.js';
import { abortedByPolarMessage } from '../../src/gateway/engine-aborted-error.js';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { EngineFleet } from '../../src/upstream/control/engine-fleet.js';
import type { EngineName } from '../../src/upstream/engines/engine-name.js';
import { buildPerRequest } from '../../src/trajectory/build-per-request.js';
import { checkTrainable } from '../../src/trajectory/check-trainable.js';
import { assertTrajectoryFidelity } from '../../src/trajectory/verify-trajectory.js';
import type { SimControlOptions } from '../../src/sim/sim-control.js';
import type { SimServerOptions } from '../../src/sim/sim-server.js';
import type { GatewayOptions } from '../../src/gateway/create-gateway.js';
import type { UpstreamProfile } from '../../src/upstream/preflight/upstream-profile.js';
import { type GatewayStack, startGatewayStack } from '../helpers/gateway-stack.js';
import { until } from '../helpers/until.js';
import { simWeightVersions } from '../helpers/sim-weight-versions.js';

const LONG = 'The quick brown fox jumps over the lazy dog while the sun sets slowly behind the distant hills, and the river keeps running toward the sea.';
const stacks: GatewayStack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

interface Harness {
  s: GatewayStack;
  openai: OpenAI;
  controller: GenerationController;
  events: GenerationStepEvent[];
}

async function start(control: SimControlOptions, engine: EngineName = 'vllm', more: { sim?: Partial<SimServerOptions>; gateway?: Partial<GatewayOptions> } = {}): Promise<Harness> {
  const s = await startGatewayStack({
    policy: scriptedPolicy({ turns: [], final: { content: LONG } }),
    sim: { control, latency: { firstTokenMs: 5, perTokenMs: 15 }, engine, ...more.sim },
    gateway: { engine, ...more.gateway },
  });
  stacks.push(s);
  const gate = new EngineGeneration(0, undefined);
  gate.attach(s.gateway);
  const fleet = new EngineFleet([{ url: s.sim!.url, engine }]);
  await fleet.probe();
  const events: GenerationStepEvent[] = [];
  const controller = new GenerationController({ gate, fleet: async () => fleet, emit: (event) => events.push(event), quietMs: 50 });
  return { s, openai: new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 }), controller, events };
}

const REQUEST = { model: 'polar-sim-qwen3', messages: [{ role: 'user' as const, content: 'Tell me.' }], temperature: 1 };

/** Streams a call, counting content chunks as they arrive. */
function streamCall(openai: OpenAI): { chunks: () => number; done: Promise<unknown> } {
  let chunks = 0;
  const done = (async () => {
    const stream = await openai.chat.completions.create({ ...REQUEST, stream: true });
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) chunks += 1;
  })();
  return { chunks: () => chunks, done };
}

describe('keep pause with a weight update mid-call', () => {
  it('records the boundary at the tokens received before the pause; the export shows it; the simulator agrees', async () => {
    const { s, openai, controller, events } = await start({ devMode: true });
    const call = streamCall(openai);
    await until(() => call.chunks() >= 6, 'tokens to stream');
    const paused = await controller.pause({ mode: 'keep', drainTimeoutMs: 0 });
    expect(paused).toMatchObject({ mode: 'keep', frozen: 1, inFlight: 1, drained: false, sleeping: null });
    const frozenAt = call.chunks();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(call.chunks()).toBe(frozenAt);
    const resumed = await controller.resume({ policyVersion: 1, weights: { kind: 'reload' } });
    expect(resumed).toMatchObject({ policyVersion: 1, weightsKind: 'reload', versionChange: { boundaries: 1, unobserved: 0 } });
    await call.done;
    // The next call is sampled with version 1 from its first token.
    await openai.chat.completions.create(REQUEST);

    const [spanning, next] = s.store.calls.listBySession(s.sessionId);
    expect(spanning).toMatchObject({ status: 'ok', policyVersion: 0 });
    const ids = spanning!.capture.tokenIds!;
    const boundary = spanning!.versionBoundaries;
    expect(boundary).toHaveLength(1);
    const [index, version] = boundary![0]!;
    expect(version).toBe(1);
    expect(index).toBeGreaterThan(0);
    expect(index).toBeLessThan(ids.length);
    // The simulator's weights sampled tokens [0, index) with version 0 and the rest with version 1.
    const truth = simWeightVersions(ids, spanning!.capture.logprobs!);
    expect(truth).toEqual(ids.map((_, i) => (i < index ? 0 : 1)));
    expect(next).toMatchObject({ status: 'ok', policyVersion: 1 });
    expect(next!.versionBoundaries).toBeUndefined();

    const calls = s.store.calls.listBySession(s.sessionId).map(toTrajectoryCall);
    const build = buildPerRequest(s.sessionId, calls);
    assertTrajectoryFidelity(calls, build);
    expect(build.rows[0]!.versions).toEqual(truth);
    expect(build.rows[1]!.versions!.every((v) => v === 1)).toBe(true);
    expect(events.map((event) => [event.step, event.mode])).toEqual([
      ['pause', 'hold'],
      ['pause', 'keep'],
      ['update-weights', 'keep'],
      ['resume', null],
    ]);
    expect(s.sim!.control.log.filter((entry) => entry.method === 'POST').map((entry) => entry.path)).toEqual(['/pause', '/collective_rpc', '/reset_prefix_cache', '/resume']);
  });

  it('a call not streamed upstream has no observable boundary: recorded as such and never trained on', async () => {
    const { s, openai, controller } = await start({ devMode: true });
    const pending = openai.chat.completions.create(REQUEST);
    await until(() => s.gateway.generation.state().inFlight === 1 && s.sim!.engine.metrics().generationTokens >= 5, 'tokens to be sampled');
    await controller.pause({ mode: 'keep', drainTimeoutMs: 0 });
    expect(await controller.resume({ policyVersion: 1, weights: { kind: 'reload' } })).toMatchObject({ versionChange: { boundaries: 0, unobserved: 1 } });
    await pending;
    const [stored] = s.store.calls.listBySession(s.sessionId);
    expect(stored).toMatchObject({ status: 'ok', versionUnobserved: 'non-streaming-upstream' });
    expect(checkTrainable(toTrajectoryCall(stored!))).toMatchObject({ trainable: false, detail: 'version-unobserved' });
  });

  it('SGLang (chat never streamed upstream): the same update leaves the call unobservable, and SGLang reports the version label', async () => {
    const { s, openai, controller } = await start({}, 'sglang');
    const pending = openai.chat.completions.create(REQUEST);
    await until(() => s.sim!.engine.metrics().generationTokens >= 5, 'tokens to be sampled');
    await controller.pause({ mode: 'keep', drainTimeoutMs: 0 });
    await controller.resume({ policyVersion: 3, weights: { kind: 'disk', modelPath: '/ckpt/3' } });
    await pending;
    expect(s.store.calls.listBySession(s.sessionId)[0]).toMatchObject({ status: 'ok', versionUnobserved: 'non-streaming-upstream' });
    expect(s.sim!.control.weightLabel).toBe('3');
    expect(s.sim!.control.log.filter((entry) => entry.method === 'POST').map((entry) => [entry.path, entry.body])).toEqual([
      ['/pause_generation', { mode: 'in_place' }],
      ['/update_weights_from_disk', { model_path: '/ckpt/3', weight_version: '3', abort_all_requests: false, flush_cache: true }],
      ['/continue_generation', {}],
    ]);
  });
});

describe('SGLang token-in: /generate streamed, so a keep pause is observed per token', () => {
  /** Keep pause after 6 streamed tokens, the weights of version 1 from disk, resume; the spanning call and the next. */
  async function spanKeepPause(sim: Partial<SimServerOptions> = {}, gateway: Partial<GatewayOptions> = {}, chunks = 6) {
    const harness = await start({}, 'sglang', { sim, gateway: { tokenIn: true, ...gateway } });
    const { s, openai, controller } = harness;
    const call = streamCall(openai);
    // Streamed through: 6 chunks reached the client; captured whole upstream: 6 tokens sampled.
    await until(() => (gateway.nonStreamingUpstream ? s.sim!.engine.metrics().generationTokens >= 6 : call.chunks() >= chunks), 'tokens to stream');
    expect(await controller.pause({ mode: 'keep', drainTimeoutMs: 0 })).toMatchObject({ mode: 'keep', frozen: 1, inFlight: 1, drained: false });
    const resumed = await controller.resume({ policyVersion: 1, weights: { kind: 'disk', modelPath: '/ckpt/1' } });
    await call.done;
    // The next call continues the lineage (token_in), sampled with version 1 from its first token.
    await openai.chat.completions.create({ ...REQUEST, messages: [...REQUEST.messages, { role: 'assistant', content: LONG }, { role: 'user', content: 'Again.' }] });
    const [spanning, next] = s.store.calls.listBySession(s.sessionId, { withRaw: true });
    return { ...harness, resumed, spanning: spanning!, next: next! };
  }

  it.each([
    ['cumulative', 0],
    ['incremental', 3],
    ['legacy', 2],
  ] as const)('%s chunks (backlog %i): 0 sampled tokens thrown away, the versions change exactly where the engine\'s weights did', async (streamOutput, streamBacklog) => {
    const { s, resumed, spanning, next } = await spanKeepPause({ sglang: { streamOutput, streamBacklog } });
    expect(resumed).toMatchObject({ policyVersion: 1, weightsKind: 'disk', versionChange: { boundaries: 1, unobserved: 0 } });
    // The session's first call too goes to /generate (the server's own rendering), streamed.
    expect(spanning).toMatchObject({ status: 'ok', policyVersion: 0, engine: 'sglang', mode: 'chat', tokenInFallback: { reason: 'no-lineage' } });
    expect(JSON.parse(spanning.raw.upstreamRequest!.toString('utf8'))).toMatchObject({ stream: true, return_logprob: true, input_ids: spanning.capture.promptTokenIds });
    expect(spanning.versionUnobserved).toBeUndefined();
    const ids = spanning.capture.tokenIds!;
    expect(spanning.capture.logprobs).toHaveLength(ids.length);
    const [[index, version]] = spanning.versionBoundaries! as [[number, number]];
    expect(version).toBe(1);
    expect(index).toBeGreaterThanOrEqual(6);
    expect(index).toBeLessThan(ids.length);
    const truth = simWeightVersions(ids, spanning.capture.logprobs!);
    expect(truth).toEqual(ids.map((_, i) => (i < index ? 0 : 1)));
    expect(next).toMatchObject({ status: 'ok', policyVersion: 1, mode: 'token_in' });
    expect(next.versionBoundaries).toBeUndefined();

    const calls = s.store.calls.listBySession(s.sessionId).map(toTrajectoryCall);
    expect(calls.map((call) => checkTrainable(call).trainable)).toEqual([true, true]);
    const build = buildPerRequest(s.sessionId, calls);
    assertTrajectoryFidelity(calls, build);
    expect(build.rows[0]!.versions).toEqual(truth);
    expect(s.sim!.control.log.filter((entry) => entry.method === 'POST').map((entry) => [entry.path, entry.body])).toEqual([
      ['/pause_generation', { mode: 'in_place' }],
      ['/update_weights_from_disk', { model_path: '/ckpt/1', weight_version: '1', abort_all_requests: false, flush_cache: true }],
      ['/continue_generation', {}],
    ]);
  });

  it('--non-streaming-upstream: the same call is captured whole, so its boundary is unknown and it is never trained on', async () => {
    const { resumed, spanning } = await spanKeepPause({}, { nonStreamingUpstream: true });
    expect(resumed).toMatchObject({ versionChange: { boundaries: 0, unobserved: 1 } });
    expect(JSON.parse(spanning.raw.upstreamRequest!.toString('utf8'))).toMatchObject({ stream: false });
    expect(spanning).toMatchObject({ status: 'ok', versionUnobserved: 'non-streaming-upstream' });
    expect(checkTrainable(toTrajectoryCall(spanning))).toMatchObject({ trainable: false, detail: 'version-unobserved' });
  });

  it('--stream-interval 4: a boundary taken from the stream may be 3 tokens early, so the call is not trained on; the scheduler\'s spans make it exact', async () => {
    // The preflight's word on the server's stream interval.
    const profile = { streamInterval: 4 } as UpstreamProfile;
    const held = await spanKeepPause({ chunkTokens: 4 }, { profile }, 2);
    expect(held.resumed).toMatchObject({ versionChange: { boundaries: 0, unobserved: 1 } });
    expect(held.spanning).toMatchObject({ status: 'ok', versionUnobserved: 'stream-interval' });
    expect(checkTrainable(toTrajectoryCall(held.spanning))).toMatchObject({ trainable: false, detail: 'version-unobserved' });

    const exact = await spanKeepPause({ chunkTokens: 4, sglang: { weightVersionSpans: true } }, { profile }, 2);
    const ids = exact.spanning.capture.tokenIds!;
    const truth = simWeightVersions(ids, exact.spanning.capture.logprobs!);
    const index = truth.indexOf(1);
    expect(index).toBeGreaterThan(0);
    expect(exact.spanning.versionUnobserved).toBeUndefined();
    expect(exact.spanning.versionBoundaries).toEqual([[index, 1]]);
    expect(truth).toEqual(ids.map((_, i) => (i < index ? 0 : 1)));
    expect(checkTrainable(toTrajectoryCall(exact.spanning)).trainable).toBe(true);
  });

  it('an abort pause ends the streamed call as engine_aborted: no trainable row', async () => {
    const { s, openai, controller } = await start({}, 'sglang', { gateway: { tokenIn: true } });
    const call = streamCall(openai);
    await until(() => call.chunks() >= 3, 'tokens to stream');
    expect(await controller.pause({ mode: 'abort', drainTimeoutMs: 5_000 })).toMatchObject({ mode: 'abort', drained: true, inFlight: 0 });
    await expect(call.done).rejects.toThrow();
    const [stored] = s.store.calls.listBySession(s.sessionId);
    expect(stored).toMatchObject({ status: 'engine_aborted', error: abortedByPolarMessage('abort'), capture: { finishReason: 'abort' } });
    expect(stored!.capture.tokenIds!.length).toBeGreaterThanOrEqual(3);
    expect(checkTrainable(toTrajectoryCall(stored!))).toMatchObject({ trainable: false, detail: 'status' });
    await controller.resume({});
  });

  it('a stream the engine cuts (no finish, no [DONE]) is typed upstream_unavailable with what came, never a trainable row', async () => {
    const { s, openai } = await start({}, 'sglang', { sim: { sglang: { dropStreamAfter: 5 } }, gateway: { tokenIn: true } });
    await expect(streamCall(openai).done).rejects.toThrow();
    const [stored] = s.store.calls.listBySession(s.sessionId);
    expect(stored).toMatchObject({ status: 'upstream_unavailable', capture: { finishReason: null } });
    expect(stored!.capture.tokenIds).toHaveLength(5);
    expect(checkTrainable(toTrajectoryCall(stored!))).toMatchObject({ trainable: false, detail: 'status' });
  });
});

describe('abort, sleep and LoRA', () => {
  it('an abort pause ends the call in flight as engine_aborted (the client gets an error); its session is an infra_error', async () => {
    const { s, openai, controller } = await start({ devMode: true });
    const call = streamCall(openai);
    await until(() => call.chunks() >= 3, 'tokens to stream');
    const outcome = await controller.pause({ mode: 'abort', drainTimeoutMs: 5_000 });
    expect(outcome).toMatchObject({ mode: 'abort', drained: true, inFlight: 0 });
    await expect(call.done).rejects.toThrow();
    const [stored] = s.store.calls.listBySession(s.sessionId);
    expect(stored).toMatchObject({ status: 'engine_aborted', error: abortedByPolarMessage('abort'), capture: { finishReason: 'abort' } });
    expect(checkTrainable(toTrajectoryCall(stored!))).toMatchObject({ trainable: false, detail: 'status' });
    // Even a harness that retried and finished: the session is an infrastructure failure, retried.
    const facts = { exitCode: 0, timedOut: false, agentStartedAt: 0, agentEndedAt: 1, oomKills: 0, calls: [{ seq: 0, status: 'engine_aborted', httpStatus: 200, startedAt: 0, latencyMs: 1 }, { seq: 1, status: 'ok', httpStatus: 200, startedAt: 0, latencyMs: 1 }] };
    expect(classifySessionFailure(facts)).toMatchObject({ status: 'infra_error', reason: 'engine_aborted', retryable: true });
    await controller.resume({});
  });

  it('an abort pause ends a call not streamed upstream the same way: engine_aborted, and the client gets a 503', async () => {
    const { s, openai, controller } = await start({ devMode: true });
    const pending = openai.chat.completions.create(REQUEST);
    const answered = pending.then(() => undefined, (error: unknown) => error);
    await until(() => s.gateway.generation.state().inFlight === 1 && s.sim!.engine.metrics().generationTokens >= 3, 'tokens to be sampled');
    expect(await controller.pause({ mode: 'abort', drainTimeoutMs: 5_000 })).toMatchObject({ mode: 'abort', drained: true, inFlight: 0 });
    expect(await answered).toMatchObject({ status: 503, message: expect.stringContaining('polar asked the inference engine to abort') });
    const [stored] = s.store.calls.listBySession(s.sessionId);
    expect(stored).toMatchObject({ status: 'engine_aborted', httpStatus: 503, error: abortedByPolarMessage('abort'), capture: { finishReason: 'abort' } });
    await controller.resume({});
  });

  it('sleep around a trainer step: nothing reaches the engine while it sleeps; the held call runs after wake + reload', async () => {
    const { s, openai, controller } = await start({ devMode: true, sleepMode: true });
    await expect(controller.pause({ mode: 'keep', drainTimeoutMs: 0, sleep: 1 })).rejects.toThrow(/cannot sleep/);
    await controller.resume({});
    const outcome = await controller.pause({ mode: 'hold', drainTimeoutMs: 5_000, sleep: 1 });
    expect(outcome).toMatchObject({ mode: 'hold', drained: true, sleeping: 1 });
    expect(s.sim!.engine.isSleeping()).toBe(true);
    const before = s.sim!.stats.requests;
    // The harness keeps calling during the trainer's step: held by the gateway.
    const held = openai.chat.completions.create(REQUEST);
    await until(() => s.gateway.generation.state().held === 1, 'the call to be held');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(s.sim!.stats.requests).toBe(before);
    expect(s.sim!.engine.metrics().arrivedWhileAsleep).toBe(0);
    await controller.resume({ policyVersion: 1, weights: { kind: 'reload' } });
    await held;
    expect(s.store.calls.listBySession(s.sessionId)[0]).toMatchObject({ status: 'ok', policyVersion: 1 });
    expect(s.sim!.control.log.filter((entry) => entry.method === 'POST').map((entry) => entry.path)).toEqual(['/sleep', '/wake_up', '/collective_rpc', '/reset_prefix_cache']);
  });

  it('a hold pause that cannot drain refuses to sleep (409) and stays paused; level 2 needs weights at the resume', async () => {
    const { s, openai, controller } = await start({ devMode: true, sleepMode: true });
    const call = streamCall(openai);
    await until(() => call.chunks() >= 2, 'tokens to stream');
    await expect(controller.pause({ mode: 'hold', drainTimeoutMs: 10, sleep: 2 })).rejects.toBeInstanceOf(GenerationConflictError);
    expect(s.sim!.engine.isSleeping()).toBe(false);
    expect(controller.state().mode).toBe('hold');
    await call.done;
    await controller.pause({ mode: 'hold', drainTimeoutMs: 5_000, sleep: 2 });
    await expect(controller.resume({ policyVersion: 1 })).rejects.toThrow(/hold no weights/);
    await controller.resume({ policyVersion: 1, weights: { kind: 'pushed' } });
    expect(s.sim!.engine.isSleeping()).toBe(false);
  });

  it('a LoRA adapter loaded in place is the model the next calls name, and the model the gateway lists', async () => {
    const { s, openai, controller } = await start({ runtimeLora: true, lora: true, devMode: true });
    const served = (await openai.models.list()).data.map((model) => model.id);
    expect(served).not.toContain('step-2');
    await controller.pause({ mode: 'keep', drainTimeoutMs: 0 });
    expect(await controller.resume({ policyVersion: 2, weights: { kind: 'lora', loraName: 'step-2', loraPath: '/ckpt/2' } })).toMatchObject({ upstreamModel: 'step-2' });
    await openai.chat.completions.create(REQUEST);
    expect(s.store.calls.listBySession(s.sessionId)[0]).toMatchObject({ status: 'ok', policyVersion: 2, upstreamModel: 'step-2', responseModel: 'step-2' });
    expect(s.sim!.control.log.find((entry) => entry.path === '/v1/load_lora_adapter')?.body).toEqual({ lora_name: 'step-2', lora_path: '/ckpt/2', load_inplace: true });
    // The harness's model list (and token counting) name what the calls are sent with.
    expect((await openai.models.list()).data.map((model) => model.id)).toEqual(['step-2']);
    expect(await s.gateway.resolveUpstreamModel(AbortSignal.timeout(5_000))).toBe('step-2');
  });
});
