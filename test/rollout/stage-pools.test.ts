import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type PoolStages, StagePools } from '../../src/rollout/stage-pools.js';

interface Item {
  run: string;
  n: number;
  stopped?: boolean;
  throwIn?: 'init' | 'run' | 'post';
  trace: string[];
}

function recorder(delays: { init?: number; run?: number; post?: number } = {}) {
  const left: { item: Item; dropped: boolean; failure?: unknown }[] = [];
  let running = 0;
  let peakRunning = 0;
  const stage = (name: 'init' | 'run' | 'post') => async (item: Item) => {
    if (name === 'run') peakRunning = Math.max(peakRunning, ++running);
    try {
      await sleep(delays[name] ?? 0);
      if (item.throwIn === name) throw new Error(`${name} broke on ${item.n}`);
      item.trace.push(name);
    } finally {
      if (name === 'run') running -= 1;
    }
  };
  const stages: PoolStages<Item> = {
    init: stage('init'),
    run: stage('run'),
    post: stage('post'),
    dropped: (item) => item.stopped === true,
    left: (item, how) => left.push({ item, ...how }),
  };
  return { stages, left, peak: () => peakRunning };
}

const item = (run: string, n: number, extra: Partial<Item> = {}): Item => ({ run, n, trace: [], ...extra });

describe('StagePools', () => {
  it('takes items while it runs: a second run submitted mid-flight goes through the same pools', async () => {
    const { stages, left, peak } = recorder({ init: 5, run: 20, post: 5 });
    const pools = new StagePools({ initWorkers: 2, runWorkers: 2, postWorkers: 2, readyBuffer: 1 }, stages);
    for (let n = 0; n < 4; n++) pools.submit(item('a', n));
    await sleep(30);
    expect(left.length).toBeLessThan(4);
    for (let n = 0; n < 3; n++) pools.submit(item('b', n));
    await pools.close();
    expect(left.map((entry) => `${entry.item.run}${entry.item.n}`).sort()).toEqual(['a0', 'a1', 'a2', 'a3', 'b0', 'b1', 'b2']);
    expect(left.every((entry) => !entry.dropped && entry.failure === undefined && entry.item.trace.join() === 'init,run,post')).toBe(true);
    expect(peak()).toBe(2);
  });

  it('drops a stopped item before init, but a prepared one goes on through run and post', async () => {
    const { stages, left } = recorder({ init: 10 });
    const pools = new StagePools({ initWorkers: 1, runWorkers: 1, postWorkers: 1, readyBuffer: 1 }, stages);
    const first = item('a', 0);
    const second = item('a', 1);
    pools.submit(first);
    pools.submit(second);
    await sleep(2); // first is in init now
    first.stopped = true;
    second.stopped = true;
    await pools.close();
    const byN = new Map(left.map((entry) => [entry.item.n, entry]));
    expect(byN.get(0)).toMatchObject({ dropped: false });
    expect(first.trace).toEqual(['init', 'run', 'post']);
    expect(byN.get(1)).toMatchObject({ dropped: true });
    expect(second.trace).toEqual([]);
  });

  it('reports a stage that throws as the item leaving with the failure, and keeps serving the others', async () => {
    const { stages, left } = recorder();
    const pools = new StagePools({ initWorkers: 1, runWorkers: 1, postWorkers: 1, readyBuffer: 1 }, stages);
    pools.submit(item('a', 0, { throwIn: 'run' }));
    pools.submit(item('a', 1));
    await pools.close();
    const broken = left.find((entry) => entry.item.n === 0);
    expect(broken?.failure).toBeInstanceOf(Error);
    expect(String((broken?.failure as Error).message)).toBe('run broke on 0');
    expect(broken?.item.trace).toEqual(['init']);
    expect(left.find((entry) => entry.item.n === 1)?.item.trace).toEqual(['init', 'run', 'post']);
  });
});
