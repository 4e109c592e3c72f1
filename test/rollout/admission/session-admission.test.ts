// The gate in front of the agent stage: fixed (--concurrency) and engine (controller under the host cap),
// places granted in arrival order and given back once; on the simulated GPU in virtual time, engine admission
// preempts far less than a fixed concurrency at the same host; and over several simulated replicas, each replica's
// controller places sessions by its own KV cache.
import { describe, expect, it } from 'vitest';
import { EngineAdmission } from '../../../src/rollout/admission/engine-admission.js';
import { engineLoadFromSimulator, fleetLoad, type EngineLoad } from '../../../src/rollout/admission/engine-load.js';
import { HeldContext, SessionContexts } from '../../../src/rollout/admission/session-contexts.js';
import { EngineSessionAdmission, FixedAdmission, type SessionAdmission } from '../../../src/rollout/admission/session-admission.js';
import { createSimEngine } from '../../../src/sim/create-sim-engine.js';
import { VirtualClock, VirtualTimeDriver } from '../../../src/sim/engine/virtual-time-driver.js';

const calm: EngineLoad = { running: 0, waiting: 0, kvUsage: 0, kvCapacityTokens: 100_000, preemptions: 0, maxNumSeqs: null, paused: false };

/** Acquires `count` places in order; returns the releases granted so far (by index) as they come. */
function queue(admission: SessionAdmission, count: number): (() => void)[] {
  const granted: (() => void)[] = [];
  for (let i = 0; i < count; i++) void admission.acquire().then((place) => (granted[i] = place.release));
  return granted;
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('FixedAdmission', () => {
  it('grants up to the limit in arrival order; a release (once, however often called) lets the next one in', async () => {
    const admission = new FixedAdmission(2);
    const granted = queue(admission, 4);
    await settle();
    expect(Object.keys(granted)).toEqual(['0', '1']);
    expect(admission.state()).toMatchObject({ mode: 'fixed', active: 2, waiting: 2, limit: 2 });
    granted[1]!();
    granted[1]!();
    await settle();
    expect(Object.keys(granted)).toEqual(['0', '1', '2']);
    expect(admission.active).toBe(2);
  });

  it('a waiter whose signal aborts leaves the queue with the signal\'s reason', async () => {
    const admission = new FixedAdmission(1);
    const { release: first } = await admission.acquire();
    const controller = new AbortController();
    const waiting = admission.acquire(controller.signal);
    controller.abort(new Error('session cancelled'));
    await expect(waiting).rejects.toThrow('session cancelled');
    expect(admission.state().waiting).toBe(0);
    first();
    expect(admission.active).toBe(0);
    expect(() => new FixedAdmission(0)).toThrow(RangeError);
  });
});

describe('EngineSessionAdmission', () => {
  it('starts waiting sessions when a reading opens the gate, never past the host cap', async () => {
    let hostCap = 3;
    const admission = new EngineSessionAdmission(new EngineAdmission({ contextWindow: 10_000 }), () => hostCap);
    admission.observe({ ...calm, kvUsage: 0.95 }, 0);
    const granted = queue(admission, 5);
    await settle();
    expect(granted).toHaveLength(0);
    admission.observe({ ...calm, kvUsage: 0.5 }, 1_000);
    await settle();
    expect(Object.keys(granted)).toHaveLength(3);
    expect(admission.state()).toMatchObject({ mode: 'engine', active: 3, waiting: 2, hostCap: 3, limit: 3 });
    hostCap = 4;
    granted[0]!();
    await settle();
    expect(admission.active).toBe(4);
  });
});

describe('EngineSessionAdmission duty cycle', () => {
  it('counts only admitted sessions that have called: a batch still starting its harnesses does not look idle', async () => {
    const admission = new EngineSessionAdmission(new EngineAdmission({ contextWindow: 20_000, rampMs: 10_000_000 }), () => 16);
    const places = await Promise.all([0, 1, 2, 3].map(() => admission.acquire()));
    for (let t = 0; t < 30; t++) admission.observe({ ...calm, kvCapacityTokens: 100_000 }, t * 1_000);
    expect(admission.state().engine?.duty).toBe(1);
    // Two have called (they hold context now); one of them has a call in the engine.
    places[0]!.holding(3_000);
    places[1]!.holding(2_000);
    for (let t = 30; t < 60; t++) admission.observe({ ...calm, running: 1, kvCapacityTokens: 100_000 }, t * 1_000);
    expect(admission.state().engine?.duty).toBeCloseTo(0.5, 6);
    for (const place of places) place.release();
  });
});

/**
 * Agent sessions on a simulated H100 with a small KV cache (64k tokens), in virtual time: each makes `calls`
 * calls whose prompt is the previous prompt + output + 1500 new tokens (final context ~15k), with 2 s of tool
 * time between calls. Engine readings every second go to the admission. Returns the preemptions counted
 * after the first `warmUp` sessions ended, and the sessions finished.
 */
async function runAgents(admission: SessionAdmission, sessions: number, warmUp: number): Promise<{ preemptionsAfterWarmUp: number; preemptionsTotal: number; finished: number; meanRunning: number; endMs: number }> {
  const { engine } = createSimEngine({ gpu: { profile: 'qwen3-8b-h100', kvCacheTokens: 64_000 } });
  const driver = new VirtualTimeDriver(engine);
  const wait = (ms: number) => new Promise<void>((resolve) => driver.after(ms, resolve));
  let nextId = 1;
  const fresh = (count: number): number[] => Array.from({ length: count }, () => nextId++);
  let finished = 0;
  let atWarmUp: number | null = null;
  let running = 0;
  let readings = 0;
  const poll = (): void => {
    if (finished === sessions) return;
    const metrics = engine.metrics();
    running += metrics.running;
    readings += 1;
    admission.observe(engineLoadFromSimulator(metrics), driver.now);
    driver.after(1_000, poll);
  };
  poll();
  const agent = async (): Promise<void> => {
    const place = await admission.acquire();
    const context = new HeldContext();
    let prompt = fresh(1_500);
    for (let call = 0; call < 9; call++) {
      const output = fresh(200);
      const handle = driver.submit({ promptTokenIds: prompt, outputTokenIds: output });
      const result = await handle.next(Number.POSITIVE_INFINITY);
      expect(result.finish).not.toBe('abort');
      context.add(prompt.length, output.length);
      place.holding(context.current);
      prompt = [...prompt, ...output, ...fresh(1_500)];
      await wait(2_000);
    }
    place.release();
    admission.sessionEnded(context.value() ?? 0);
    finished += 1;
    if (finished === warmUp) atWarmUp = engine.metrics().preemptions;
  };
  const agents = Array.from({ length: sessions }, agent);
  const endMs = await driver.run();
  await Promise.all(agents);
  const total = engine.metrics().preemptions;
  return { preemptionsAfterWarmUp: total - (atWarmUp ?? total), preemptionsTotal: total, finished, meanRunning: running / readings, endMs };
}

describe('on the simulated GPU (virtual time)', () => {
  it('engine admission preempts far less than a fixed concurrency of the same host, and keeps more than one request in the batch', async () => {
    const engineRun = await runAgents(new EngineSessionAdmission(new EngineAdmission({ contextWindow: 32_768 }), () => 16), 48, 8);
    const fixedRun = await runAgents(new FixedAdmission(16), 48, 8);
    expect(engineRun.finished).toBe(48);
    expect(fixedRun.finished).toBe(48);
    // Sized by the context sessions hold, it lets the cache overflow a little (preemption within its cost budget), not as a fixed 16 does.
    expect(engineRun.preemptionsAfterWarmUp).toBeLessThan(fixedRun.preemptionsAfterWarmUp / 2);
    expect(engineRun.meanRunning).toBeGreaterThan(1);
  });
});

/**
 * Agent sessions (as runAgents) on a fleet of simulated GPUs sharing one virtual clock, each session's calls on
 * one replica: the one its admission place names, else the replica with the fewest sessions (the gateway's rule
 * for a session admission did not place). `readings`: each replica's reading by name (per-replica admission), or
 * the fleet's summed one. Returns each replica's preemptions after the warm-up and the sessions it served.
 */
async function runFleet(admission: SessionAdmission, kvTokens: readonly number[], sessions: number, warmUp: number, readings: 'per-replica' | 'fleet'): Promise<{ preemptionsAfterWarmUp: number[]; served: number[] }> {
  const clock = new VirtualClock();
  const names = kvTokens.map((_, index) => `http://gpu-${index}:8000/v1`);
  const drivers = kvTokens.map((tokens) => new VirtualTimeDriver(createSimEngine({ gpu: { profile: 'qwen3-8b-h100', kvCacheTokens: tokens } }).engine, clock));
  const wait = (ms: number) => new Promise<void>((resolve) => clock.after(ms, resolve));
  let nextId = 1;
  const fresh = (count: number): number[] => Array.from({ length: count }, () => nextId++);
  const pinned = kvTokens.map(() => 0);
  const served = kvTokens.map(() => 0);
  let finished = 0;
  let atWarmUp: number[] | null = null;
  const poll = (): void => {
    if (finished === sessions) return;
    const loads = drivers.map((driver) => engineLoadFromSimulator(driver.metrics()));
    admission.observe(readings === 'fleet' ? fleetLoad(loads) : new Map(loads.map((load, index) => [names[index] as string, load])), clock.now);
    clock.after(1_000, poll);
  };
  poll();
  const agent = async (): Promise<void> => {
    const place = await admission.acquire();
    const replica = place.replica === null ? pinned.indexOf(Math.min(...pinned)) : names.indexOf(place.replica);
    pinned[replica] = (pinned[replica] ?? 0) + 1;
    const driver = drivers[replica] as VirtualTimeDriver;
    let prompt = fresh(1_500);
    for (let call = 0; call < 9; call++) {
      const output = fresh(200);
      const result = await driver.submit({ promptTokenIds: prompt, outputTokenIds: output }).next(Number.POSITIVE_INFINITY);
      expect(result.finish).not.toBe('abort');
      place.holding(prompt.length + output.length);
      prompt = [...prompt, ...output, ...fresh(1_500)];
      await wait(2_000);
    }
    place.release();
    pinned[replica] = (pinned[replica] ?? 0) - 1;
    served[replica] = (served[replica] ?? 0) + 1;
    admission.sessionEnded(prompt.length);
    finished += 1;
    if (finished === warmUp) atWarmUp = drivers.map((driver) => driver.metrics().preemptions);
  };
  const agents = Array.from({ length: sessions }, agent);
  await clock.run();
  await Promise.all(agents);
  return { preemptionsAfterWarmUp: drivers.map((driver, index) => driver.metrics().preemptions - (atWarmUp?.[index] ?? 0)), served };
}

describe('engine admission over several replicas (simulated GPUs in virtual time)', () => {
  it('places sessions by each replica\'s own KV cache; one controller over the fleet\'s summed reading overfills the small replica', async () => {
    const kv = [64_000, 24_000];
    const contexts = new SessionContexts({ contextWindow: 32_768 });
    const replicas = kv.map((_, index) => ({ replica: `http://gpu-${index}:8000/v1`, controller: new EngineAdmission({ contexts }) }));
    const perReplica = new EngineSessionAdmission(replicas, () => 32, contexts);
    const placed = await runFleet(perReplica, kv, 64, 8, 'per-replica');
    const pooled = await runFleet(new EngineSessionAdmission(new EngineAdmission({ contextWindow: 32_768 }), () => 32), kv, 64, 8, 'fleet');
    for (const run of [placed, pooled]) expect(run.served.reduce((sum, count) => sum + count, 0)).toBe(64);
    // Per replica: the larger cache serves about as many more sessions as it holds; the small one never preempts.
    expect(placed.served[0]).toBeGreaterThan(1.5 * (placed.served[1] as number));
    expect(placed.preemptionsAfterWarmUp[1]).toBe(0);
    // Pooled: sessions spread by count, and the small replica preempts again and again.
    expect(pooled.preemptionsAfterWarmUp[1]).toBeGreaterThan(10);
    const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
    expect(sum(placed.preemptionsAfterWarmUp)).toBeLessThan(sum(pooled.preemptionsAfterWarmUp) / 2);
    // The fleet's target is the sum of the replicas'; the larger cache has the larger target.
    const state = perReplica.state();
    expect(state.replicas).toHaveLength(2);
    expect(state.engine?.target).toBe((state.replicas ?? []).reduce((total, replica) => total + replica.target, 0));
    expect(state.replicas?.[0]?.target).toBeGreaterThan(state.replicas?.[1]?.target as number);
  });
});
