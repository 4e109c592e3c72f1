// runWithConcurrency: results in item order, never more than `limit` in flight, first error and abort stop new work.
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runWithConcurrency } from '../../../src/eval/swebench/run-with-concurrency.js';

/** Runs `durations` (ms) through the pool and records the peak number in flight and the start order. */
async function measure(durations: number[], limit: number) {
  let inFlight = 0;
  let peak = 0;
  const started: number[] = [];
  const results = await runWithConcurrency(durations, limit, async (ms, index) => {
    started.push(index);
    peak = Math.max(peak, ++inFlight);
    await delay(ms);
    inFlight -= 1;
    return `r${index}`;
  });
  return { results, peak, started };
}

describe('runWithConcurrency', () => {
  it.each([
    { durations: [30, 5, 5, 5, 5], limit: 2, peak: 2 },
    { durations: [5, 5, 5], limit: 1, peak: 1 },
    { durations: [5, 5, 5], limit: 8, peak: 3 },
    { durations: [], limit: 3, peak: 0 },
  ])('limit $limit over $durations.length items: peak $peak, results in item order', async ({ durations, limit, peak }) => {
    const measured = await measure(durations, limit);
    expect(measured.results).toEqual(durations.map((_, index) => `r${index}`));
    expect(measured.peak).toBe(peak);
    expect(measured.started).toEqual(durations.map((_, index) => index));
  });

  it('stops starting items after the first failure and rejects with it once the others settle', async () => {
    const started: number[] = [];
    let settled = 0;
    const failure = new Error('boom');
    const run = runWithConcurrency([0, 1, 2, 3, 4], 2, async (item) => {
      started.push(item);
      await delay(item === 0 ? 5 : 30);
      settled += 1;
      if (item === 0) throw failure;
      return item;
    });
    await expect(run).rejects.toBe(failure);
    expect(started).toEqual([0, 1]);
    expect(settled).toBe(2);
  });

  it('stops starting items on abort and rejects with the reason', async () => {
    const controller = new AbortController();
    const reason = new Error('stop');
    const started: number[] = [];
    const run = runWithConcurrency([0, 1, 2, 3], 1, async (item) => {
      started.push(item);
      if (item === 1) controller.abort(reason);
      await delay(5);
      return item;
    }, controller.signal);
    await expect(run).rejects.toBe(reason);
    expect(started).toEqual([0, 1]);
  });
});
