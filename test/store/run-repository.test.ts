import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/open-store.js';

describe('run repository', () => {
  let store: Store;
  afterEach(() => store?.close());

  it('keeps a run, its tasks and sessions, and every state change', () => {
    store = openStore(':memory:');
    const run = store.runs.create({ name: 'r1', harness: 'pi', datasetPath: '/d.jsonl', upstream: 'sim:oracle', samples: 2, config: { timeout: 60 }, ownerPid: 1, ownerHost: 'h' });
    expect(store.runs.get('r1')).toMatchObject({ id: run.id, status: 'running', config: { timeout: 60 } });
    expect(store.runs.get(String(run.id))?.name).toBe('r1');
    const task = store.runs.addTask(run.id, 'repo__x-1', { instance_id: 'repo__x-1', patch: 'p' });
    const a = store.runs.addSession(run.id, task.id, 0, true);
    const b = store.runs.addSession(run.id, task.id, 1, true);
    expect(a.key).not.toBe(b.key);
    expect(store.sessions.findByKey(a.key)?.id).toBe(a.id);
    store.runs.setStage(a.id, 'running');
    store.runs.addTimings(a.id, { init: 10 });
    store.runs.addTimings(a.id, { run: 20 });
    store.runs.finishSession(a.id, { status: 'completed', patch: 'diff', exitCode: 0 });
    store.runs.setReward(a.id, 1, { resolved: true });
    const sessions = store.runs.sessions(run.id);
    expect(sessions.map((session) => [session.sampleIndex, session.stage, session.status])).toEqual([
      [0, 'done', 'completed'],
      [1, 'queued', null],
    ]);
    expect(sessions[0]).toMatchObject({ instanceId: 'repo__x-1', timings: { init: 10, run: 20 }, patch: 'diff', reward: 1, evaluation: { resolved: true }, callCount: 0 });
    store.runs.resetSession(a.id);
    expect(store.runs.session(a.id)).toMatchObject({ stage: 'queued', status: null, patch: null, reward: null });
    store.runs.finish(run.id, 'finished', { sessions: 2 });
    expect(store.runs.get(run.id)).toMatchObject({ status: 'finished', ownerPid: null, stats: { sessions: 2 } });
    expect(() => store.runs.setStage(9999, 'init')).toThrow('session 9999');
  });
});
