// The virtual-time driver: fixed-latency timing to the millisecond, arrivals that cut a wait short, and a
// GPU timeline that is the same on every run under one seed.
import { describe, expect, it } from 'vitest';
import { createSimEngine } from '../../../src/sim/create-sim-engine.js';
import type { GenerationHandle } from '../../../src/sim/engine/generation-types.js';
import { VirtualClock, VirtualTimeDriver } from '../../../src/sim/engine/virtual-time-driver.js';
import { seededRandom } from '../../../src/sim/seeded-random.js';
import { request } from './engine-test-kit.js';

/** Reads a handle token by token, recording the virtual time each one came out. */
async function tokenTimes(driver: VirtualTimeDriver, handle: GenerationHandle): Promise<number[]> {
  const times: number[] = [];
  for (;;) {
    const batch = await handle.next(1);
    for (const _ of batch.tokens) times.push(driver.now);
    if (batch.finish) return times;
  }
}

describe('fixed-latency timing (no GPU profile)', () => {
  it('gives token i at firstTokenMs + i * perTokenMs after arrival, each request on its own clock', async () => {
    const driver = new VirtualTimeDriver(createSimEngine({ latency: { firstTokenMs: 100, perTokenMs: 10 } }).engine);
    const first = tokenTimes(driver, driver.submit(request(50, 4)));
    let second: Promise<number[]> | undefined;
    driver.at(35, () => {
      second = tokenTimes(driver, driver.submit(request(500, 3)));
    });
    await driver.run();
    expect(await first).toEqual([100, 110, 120, 130]);
    expect(await second).toEqual([135, 145, 155]);
  });

  it('with perTokenMs 0 every token comes at once, after firstTokenMs', async () => {
    const driver = new VirtualTimeDriver(createSimEngine({ latency: { firstTokenMs: 40 } }).engine);
    const handle = driver.submit(request(5, 100));
    const result = handle.next(Number.POSITIVE_INFINITY);
    await driver.run();
    expect((await result).tokens).toHaveLength(100);
    expect(driver.now).toBe(40);
    expect(driver.metrics().steps).toBe(1);
  });
});

describe('a simulated GPU in virtual time', () => {
  /** 40 requests with seeded lengths arriving over two seconds; returns every batch as [time, request, tokens so far]. */
  async function timeline(stepSeed: number): Promise<[number, number, number][]> {
    const { engine } = createSimEngine({ gpu: { profile: 'qwen3-8b-h100', stepJitter: 0.2, seed: stepSeed } });
    const driver = new VirtualTimeDriver(engine);
    const random = seededRandom(42);
    const events: [number, number, number][] = [];
    const readers: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) {
      const arrival = Math.floor(random() * 2000);
      const prompt = 200 + Math.floor(random() * 3000);
      const output = 20 + Math.floor(random() * 400);
      driver.at(arrival, () => {
        const handle = driver.submit(request(prompt, output, i * 10_000));
        readers.push(
          (async () => {
            let seen = 0;
            for (;;) {
              const batch = await handle.next(16);
              seen += batch.tokens.length;
              events.push([driver.now, i, seen]);
              if (batch.finish) return;
            }
          })(),
        );
      });
    }
    await driver.run();
    await Promise.all(readers);
    return events;
  }

  it('is deterministic under a seed: the same seeds give the same timeline, another step seed another', async () => {
    const a = await timeline(1);
    const b = await timeline(1);
    const c = await timeline(2);
    expect(a.length).toBeGreaterThan(40);
    expect(b).toEqual(a);
    expect(c).not.toEqual(a);
  });

  it('runs a workload of minutes of GPU time (64 x 5000 tokens on qwen3-32b-h100, with preemptions) to the end', async () => {
    const { engine } = createSimEngine({ gpu: { profile: 'qwen3-32b-h100' } });
    const driver = new VirtualTimeDriver(engine);
    const results = Array.from({ length: 64 }, (_, i) => driver.submit(request(4000, 1000, i * 10_000)).next(Number.POSITIVE_INFINITY));
    const end = await driver.run();
    expect((await Promise.all(results)).every((r) => r.finish === 'stop' && r.tokens.length === 1000)).toBe(true);
    expect(end).toBeGreaterThan(60_000);
    expect(driver.metrics()).toMatchObject({ running: 0, waiting: 0, generationTokens: 64_000 });
    expect(driver.metrics().preemptions).toBeGreaterThan(0);
  });
});

describe('several engines on one clock', () => {
  /** Each request's completion time on `engines` GPUs sharing a clock, request i on engine i % engines. */
  async function finishTimes(engines: number, requests: number): Promise<number[]> {
    const clock = new VirtualClock();
    const drivers = Array.from({ length: engines }, () => new VirtualTimeDriver(createSimEngine({ gpu: { profile: 'qwen3-8b-h100' } }).engine, clock));
    const times: number[] = [];
    const done = Array.from({ length: requests }, async (_, i) => {
      const driver = drivers[i % engines]!;
      await driver.submit(request(2_000 + 500 * i, 100 + 20 * i, i * 10_000)).next(Number.POSITIVE_INFINITY);
      times[i] = driver.now;
    });
    await clock.run();
    await Promise.all(done);
    return times;
  }

  it('steps each engine on its own: the requests of engine k finish when they would on engine k alone', async () => {
    const shared = await finishTimes(2, 6);
    const alone = await finishTimes(1, 6);
    // Engine 0 alone would have served requests 0, 2, 4 with 1, 3, 5 beside them; served alone on separate clocks:
    const evens = await (async () => {
      const clock = new VirtualClock();
      const driver = new VirtualTimeDriver(createSimEngine({ gpu: { profile: 'qwen3-8b-h100' } }).engine, clock);
      const times: number[] = [];
      const done = [0, 2, 4].map(async (i) => {
        await driver.submit(request(2_000 + 500 * i, 100 + 20 * i, i * 10_000)).next(Number.POSITIVE_INFINITY);
        times.push(driver.now);
      });
      await clock.run();
      await Promise.all(done);
      return times;
    })();
    expect([shared[0], shared[2], shared[4]]).toEqual(evens);
    // Two GPUs finish the six requests sooner than one.
    expect(Math.max(...shared)).toBeLessThan(Math.max(...alone));
    expect(await finishTimes(2, 6)).toEqual(shared);
  });

  it('a callback on the clock runs between the steps of every engine, in time order', async () => {
    const clock = new VirtualClock();
    const a = new VirtualTimeDriver(createSimEngine({ latency: { firstTokenMs: 100 } }).engine, clock);
    const b = new VirtualTimeDriver(createSimEngine({ latency: { firstTokenMs: 30 } }).engine, clock);
    const order: string[] = [];
    void a.submit(request(5, 1)).next(1).then(() => order.push(`a@${clock.now}`));
    void b.submit(request(5, 1)).next(1).then(() => order.push(`b@${clock.now}`));
    clock.at(50, () => order.push('tick@50'));
    await clock.run();
    expect(order).toEqual(['b@30', 'tick@50', 'a@100']);
    expect(a.now).toBe(100);
  });
});
