import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AsyncChannel } from '../../src/rollout/async-channel.js';
import { runPipeline } from '../../src/rollout/run-pipeline.js';

describe('runPipeline', () => {
  it('moves every item through init, run and post exactly once', async () => {
    const seen: string[] = [];
    const items = Array.from({ length: 20 }, (_, index) => index);
    await runPipeline(items, {
      init: async (item) => (seen.push(`init ${item}`), item),
      run: async (item) => (seen.push(`run ${item}`), item),
      post: async (item) => void seen.push(`post ${item}`),
    }, { initWorkers: 3, runWorkers: 2, postWorkers: 2, readyBuffer: 2 });
    for (const stage of ['init', 'run', 'post']) {
      expect(seen.filter((entry) => entry.startsWith(stage)).map((entry) => Number(entry.split(' ')[1])).sort((a, b) => a - b)).toEqual(items);
    }
  });

  it('never runs more than runWorkers agents and never holds more than readyBuffer prepared items', async () => {
    let running = 0;
    let maxRunning = 0;
    let prepared = 0;
    let maxPrepared = 0;
    await runPipeline(Array.from({ length: 12 }, (_, index) => index), {
      init: async (item) => {
        await sleep(1);
        prepared += 1;
        maxPrepared = Math.max(maxPrepared, prepared);
        return item;
      },
      run: async (item) => {
        prepared -= 1;
        running += 1;
        maxRunning = Math.max(maxRunning, running);
        await sleep(10);
        running -= 1;
        return item;
      },
      post: async () => sleep(5),
    }, { initWorkers: 4, runWorkers: 2, postWorkers: 1, readyBuffer: 2 });
    expect(maxRunning).toBe(2);
    // buffered items + the one each init worker holds while waiting to put
    expect(maxPrepared).toBeLessThanOrEqual(2 + 4 + 2);
  });

  it('keeps the run pool busy while init and post are slow (staged), unlike serial', async () => {
    const measure = async (mode: 'staged' | 'serial') => {
      let busy = 0;
      let running = 0;
      let since = 0;
      const started = performance.now();
      await runPipeline(Array.from({ length: 8 }, (_, index) => index), {
        init: async (item) => (await sleep(20), item),
        run: async (item) => {
          if (running++ === 0) since = performance.now();
          await sleep(20);
          if (--running === 0) busy += performance.now() - since;
          return item;
        },
        post: async () => sleep(20),
      }, { initWorkers: 4, runWorkers: 2, postWorkers: 4, readyBuffer: 2 }, { mode });
      return busy / (performance.now() - started);
    };
    const staged = await measure('staged');
    const serial = await measure('serial');
    expect(staged).toBeGreaterThan(serial);
  });

  it('stops taking new items once the signal aborts', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    await runPipeline(Array.from({ length: 10 }, (_, index) => index), {
      init: async (item) => {
        started.push(item);
        if (item === 2) controller.abort();
        return item;
      },
      run: async (item) => item,
      post: async () => undefined,
    }, { initWorkers: 1, runWorkers: 1, postWorkers: 1, readyBuffer: 1 }, { signal: controller.signal });
    expect(started).toEqual([0, 1, 2]);
  });
});

describe('runPipeline failures', () => {
  it('rethrows the first stage error after the workers finish, and starts no new item after it', async () => {
    const started: number[] = [];
    const boom = new Error('store failed');
    const run = runPipeline(Array.from({ length: 10 }, (_, index) => index), {
      init: async (item) => (started.push(item), item),
      run: async (item) => {
        if (item === 1) throw boom;
        return item;
      },
      post: async () => undefined,
    }, { initWorkers: 1, runWorkers: 1, postWorkers: 1, readyBuffer: 1 });
    await expect(run).rejects.toBe(boom);
    expect(started.length).toBeLessThan(10);
  });
});

describe('AsyncChannel', () => {
  it('blocks producers at capacity and drains after close', async () => {
    const channel = new AsyncChannel<number>(1);
    await channel.put(1);
    let second = false;
    const put = channel.put(2).then(() => (second = true));
    await sleep(5);
    expect(second).toBe(false);
    expect(await channel.take()).toBe(1);
    await put;
    channel.close();
    expect(await channel.take()).toBe(2);
    expect(await channel.take()).toBeUndefined();
  });
});
