// Engine control in virtual time: pause keep / abort / wait, weight versions, sleep, prefix-cache reset.
import { describe, expect, it } from 'vitest';
import { VirtualTimeDriver } from '../../../src/sim/engine/virtual-time-driver.js';
import { request, smallGpu, tokens } from './engine-test-kit.js';

function gpuDriver(config: Parameters<typeof smallGpu>[0] = {}): VirtualTimeDriver {
  return new VirtualTimeDriver(smallGpu(config).engine);
}

describe('pause keep', () => {
  it('freezes a request with its KV cache; after resume the remaining tokens carry the new weight version', async () => {
    const driver = gpuDriver();
    const handle = driver.submit(request(50, 40));
    const seen: { frozenTokens?: number; frozenSteps?: number; kvWhilePaused?: number; resumedAt?: number } = {};
    const flow = (async () => {
      const head = await handle.next(10);
      await driver.pause('keep');
      const paused = driver.metrics();
      seen.frozenTokens = paused.generationTokens;
      seen.frozenSteps = paused.steps;
      seen.kvWhilePaused = paused.kvCacheUsage;
      driver.after(500, () => {
        const still = driver.metrics();
        expect(still.generationTokens).toBe(seen.frozenTokens);
        expect(still.steps).toBe(seen.frozenSteps);
        void driver.updateWeights({ version: 7 }).then(() => {
          seen.resumedAt = driver.now;
          driver.resume();
        });
      });
      const tail = await handle.next(Number.POSITIVE_INFINITY);
      return { head, tail };
    })();
    await driver.run();
    const { head, tail } = await flow;
    expect(head.tokens.map((t) => t.version)).toEqual(Array(10).fill(0));
    expect(tail.tokens).toHaveLength(30);
    expect(tail.tokens.map((t) => t.version)).toEqual(Array(30).fill(7));
    expect(tail.finish).toBe('stop');
    expect(seen.frozenTokens).toBe(10);
    expect(seen.kvWhilePaused).toBeGreaterThan(0);
    expect(seen.resumedAt).toBeGreaterThanOrEqual(500);
    // Kept, not recomputed: the prompt and the sampled tokens were computed once.
    expect(driver.metrics()).toMatchObject({ preemptions: 0, processedTokens: 50 + 39, weightVersion: 7 });
  });
});

describe('pause abort', () => {
  it('ends every running and waiting request now with finish abort and the tokens so far; new requests wait for resume', async () => {
    const driver = gpuDriver({ maxNumSeqs: 1 });
    const running = driver.submit(request(30, 40, 0));
    const waiting = driver.submit(request(30, 40, 5000));
    const flow = (async () => {
      await running.next(5);
      await driver.pause('abort');
      const late = driver.submit(request(10, 3, 9000));
      const states = { paused: driver.isPaused(), waiting: driver.metrics().waiting };
      driver.after(100, () => driver.resume());
      return { a: await running.next(Number.POSITIVE_INFINITY), b: await waiting.next(Number.POSITIVE_INFINITY), late: await late.next(Number.POSITIVE_INFINITY), states };
    })();
    await driver.run();
    const { a, b, late, states } = await flow;
    expect(a).toMatchObject({ tokens: [], offset: 5, finish: 'abort' });
    expect(b).toMatchObject({ tokens: [], offset: 0, finish: 'abort' });
    expect(states).toEqual({ paused: true, waiting: 1 });
    expect(late.finish).toBe('stop');
    expect(late.tokens).toHaveLength(3);
    expect(driver.metrics().finished).toEqual({ stop: 1, length: 0, abort: 2 });
    // Freed blocks keep their cached prefixes but count as free, as in vLLM's kv_cache_usage.
    expect(driver.metrics().kvCacheUsage).toBe(0);
  });
});

describe('pause wait', () => {
  it('admits nothing new, lets the running request finish, and resolves when idle', async () => {
    const driver = gpuDriver({ maxNumSeqs: 1 });
    const running = driver.submit(request(30, 20, 0));
    const queued = driver.submit(request(30, 20, 5000));
    const flow = (async () => {
      await running.next(2);
      await driver.pause('wait');
      const atDrain = { running: running.next(Number.POSITIVE_INFINITY), metrics: driver.metrics() };
      driver.after(50, () => driver.resume());
      return { ...atDrain, queued: await queued.next(Number.POSITIVE_INFINITY) };
    })();
    await driver.run();
    const { running: finished, metrics, queued: later } = await flow;
    expect((await finished).finish).toBe('stop');
    expect(metrics).toMatchObject({ running: 0, waiting: 1, paused: true });
    expect(metrics.generationTokens).toBe(20);
    expect(later).toMatchObject({ finish: 'stop' });
    expect(later.tokens).toHaveLength(20);
  });
});

describe('sleep', () => {
  it('runs no steps while asleep, drops the KV cache, counts arrivals, and continues after wakeUp', async () => {
    const driver = gpuDriver();
    const first = driver.submit(request(40, 30, 0));
    const flow = (async () => {
      await first.next(5);
      await driver.sleep(1, 'keep');
      const asleep = driver.metrics();
      const second = driver.submit(request(20, 10, 7000));
      driver.after(1000, () => {
        expect(driver.metrics().steps).toBe(asleep.steps);
        expect(driver.isSleeping()).toBe(true);
        driver.wakeUp();
      });
      return { asleep, rest: await first.next(Number.POSITIVE_INFINITY), second: await second.next(Number.POSITIVE_INFINITY) };
    })();
    const end = await driver.run();
    const { asleep, rest, second } = await flow;
    expect(asleep).toMatchObject({ sleepLevel: 1, kvCacheUsage: 0, running: 0, waiting: 1 });
    expect(rest.finish).toBe('stop');
    expect(rest.tokens).toHaveLength(25);
    expect(second.finish).toBe('stop');
    expect(end).toBeGreaterThan(1000);
    const metrics = driver.metrics();
    expect(metrics.arrivedWhileAsleep).toBe(1);
    // The kept request lost its KV at 40 + 4 computed tokens: after the wake-up it prefilled all 45 again, then decoded 24.
    expect(metrics.processedTokens).toBe(40 + 4 + (45 + 24) + (20 + 9));
  });

  it('aborts requests in flight by default (vLLM sleep mode abort)', async () => {
    const driver = gpuDriver();
    const handle = driver.submit(request(40, 30));
    const flow = (async () => {
      await handle.next(3);
      await driver.sleep(2);
      return handle.next(Number.POSITIVE_INFINITY);
    })();
    await driver.run();
    expect(await flow).toMatchObject({ tokens: [], finish: 'abort' });
    expect(driver.metrics().sleepLevel).toBe(2);
  });
});

describe('weights and prefix cache', () => {
  it('resetPrefixCache refuses while a request holds blocks, then forgets every prefix', async () => {
    const driver = gpuDriver();
    const prompt = tokens(64, 0);
    const first = driver.submit({ promptTokenIds: prompt, outputTokenIds: tokens(20, 9000) });
    const flow = (async () => {
      await first.next(2);
      const whileRunning = driver.resetPrefixCache();
      await first.next(Number.POSITIVE_INFINITY);
      const whenIdle = driver.resetPrefixCache();
      const again = driver.submit({ promptTokenIds: prompt, outputTokenIds: tokens(2, 9000) });
      await again.next(Number.POSITIVE_INFINITY);
      return { whileRunning, whenIdle };
    })();
    await driver.run();
    expect(await flow).toEqual({ whileRunning: false, whenIdle: true });
    expect(driver.metrics()).toMatchObject({ prefixCacheQueries: 128, prefixCacheHits: 0 });
  });

  it('updateWeights with abortRequests ends requests in flight; later tokens carry the new version', async () => {
    const driver = gpuDriver();
    const old = driver.submit(request(20, 30));
    const flow = (async () => {
      await old.next(4);
      await driver.updateWeights({ version: 3, abortRequests: true, resetPrefixCache: true });
      const fresh = driver.submit(request(20, 5, 4000));
      return { old: await old.next(Number.POSITIVE_INFINITY), fresh: await fresh.next(Number.POSITIVE_INFINITY) };
    })();
    await driver.run();
    const result = await flow;
    expect(result.old.finish).toBe('abort');
    expect(result.fresh.tokens.map((t) => t.version)).toEqual([3, 3, 3, 3, 3]);
  });
});

describe('combined states', () => {
  it('pause wait after pause keep lets the frozen requests run to their end', async () => {
    const driver = gpuDriver();
    const frozen = driver.submit(request(20, 30));
    const flow = (async () => {
      await frozen.next(3);
      await driver.pause('keep');
      await driver.pause('wait');
      return driver.metrics();
    })();
    await driver.run();
    expect(await flow).toMatchObject({ running: 0, paused: true, generationTokens: 30, finished: { stop: 1, length: 0, abort: 0 } });
  });

  it('sleep wait while paused (keep) drains the frozen request, then sleeps', async () => {
    const driver = gpuDriver();
    const frozen = driver.submit(request(20, 30));
    const flow = (async () => {
      await frozen.next(3);
      await driver.pause('keep');
      await driver.sleep(1, 'wait');
      return { asleep: driver.metrics(), rest: await frozen.next(Number.POSITIVE_INFINITY) };
    })();
    await driver.run();
    const { asleep, rest } = await flow;
    expect(asleep).toMatchObject({ sleepLevel: 1, running: 0, paused: true, generationTokens: 30 });
    expect(rest.finish).toBe('stop');
  });
});
