import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/open-database.js';
import { SESSION_CALL_TOTALS } from '../../src/store/run-session-queries.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { okCallRecord } from '../helpers/ok-call-record.js';
import { useTempDirs } from './temp-dir.js';

function seed(store: Store, tasks: number, samples: number) {
  const run = store.runs.create({ name: 'big', harness: 'pi', datasetPath: '/d.jsonl', upstream: 'sim:oracle', samples, config: {}, ownerPid: 1, ownerHost: 'h' });
  for (let t = 0; t < tasks; t++) {
    const task = store.runs.addTask(run.id, `repo__x-${t}`, {});
    for (let s = 0; s < samples; s++) store.runs.addSession(run.id, task.id, s, true);
  }
  return run;
}

describe('light run session readers', () => {
  let store: Store;
  afterEach(() => store?.close());

  it('iterates every session in task then sample order, across pages, without agent logs or patches', () => {
    store = openStore(':memory:');
    const run = seed(store, 5, 3);
    const first = store.runs.sessions(run.id)[0]!;
    store.calls.insert(okCallRecord({ sessionId: first.id, prompt: [1, 2, 3], sampled: [4, 5], logprobs: [-0.5, -0.25], messages: [] }));
    store.runs.finishSession(first.id, { status: 'completed', patch: 'diff --git a/x b/x\n+1\n+2\n\n', agentLog: 'x'.repeat(65_536), exitCode: 0 });
    store.runs.setAgentOutcome(first.id, { status: 'completed', agentLog: 'log' });

    const full = store.runs.sessions(run.id);
    for (const pageSize of [1, 2, 4, 15, 16, 256]) {
      const light = [...store.runs.iterateSessionSummaries(run.id, { pageSize })];
      expect(light.map((session) => session.id)).toEqual(full.map((session) => session.id));
      for (const [index, session] of light.entries()) {
        const { patch, agentLog, agentOutcome, ...rest } = full[index]!;
        expect(session).toMatchObject(rest);
        expect(session).not.toHaveProperty('agentLog');
        expect(session).not.toHaveProperty('patch');
        expect(session.hasAgentOutcome).toBe(agentOutcome !== null);
        expect(session.agentOutcomeStatus).toBe(agentOutcome?.status ?? null);
        expect(session.patchLines).toBe(patch === null ? null : patch.trimEnd().split('\n').length);
        expect(session.patchBytes).toBe(patch === null ? null : Buffer.byteLength(patch));
      }
    }
    expect(store.runs.iterateSessionSummaries(run.id).next().value).toMatchObject({ callCount: 1, okCallCount: 1, promptTokens: 3, sampledTokens: 2, patchLines: 3 });
    expect(store.runs.sessionPatch(first.id)).toBe('diff --git a/x b/x\n+1\n+2\n\n');
    expect(store.runs.sessionPatch(full[1]!.id)).toBeNull();
    expect(store.runs.sessionPatch(99_999)).toBeUndefined();
  });

  it('reads lazily: a session changed after the first yield is seen changed, and writes between yields work', () => {
    store = openStore(':memory:');
    const run = seed(store, 4, 2);
    const ids = store.runs.sessions(run.id).map((session) => session.id);
    const iterator = store.runs.iterateSessionSummaries(run.id, { pageSize: 2 });
    expect(iterator.next().value?.status).toBeNull();
    // A write while the iterator is suspended (a preloaded list, or an open cursor holding the connection, would fail this).
    store.runs.finishSession(ids.at(-1)!, { status: 'timeout', patch: '' });
    const rest = [...iterator];
    expect(rest).toHaveLength(ids.length - 1);
    expect(rest.at(-1)).toMatchObject({ id: ids.at(-1), status: 'timeout', patchLines: 0, patchBytes: 0 });
  });

  it('an empty run yields nothing', () => {
    store = openStore(':memory:');
    const run = seed(store, 0, 1);
    expect([...store.runs.iterateSessionSummaries(run.id)]).toEqual([]);
    expect(store.runs.counts(run.id)).toEqual({ total: 0, done: 0, byStatus: {} });
    expect(store.runs.groupSummaries(run.id)).toEqual([]);
  });

  it('aggregates groups and counts in SQL', () => {
    store = openStore(':memory:');
    const run = seed(store, 2, 3);
    const [a, b, c, d] = store.runs.sessions(run.id);
    store.runs.finishSession(a!.id, { status: 'completed' });
    store.runs.setReward(a!.id, 1, null);
    store.runs.finishSession(b!.id, { status: 'agent_error' });
    store.runs.setReward(b!.id, 0, null);
    store.runs.finishSession(c!.id, { status: 'infra_error' });
    store.runs.setReward(c!.id, 1, null);
    store.runs.finishSession(d!.id, { status: 'cancelled' });
    expect(store.runs.groupSummaries(run.id)).toEqual([
      { instanceId: 'repo__x-0', samples: 3, inGroup: 2, completed: 1, resolved: 1, meanReward: 0.5 },
      { instanceId: 'repo__x-1', samples: 3, inGroup: 2, completed: 0, resolved: 0, meanReward: null },
    ]);
    expect(store.runs.counts(run.id)).toEqual({ total: 6, done: 4, byStatus: { completed: 1, agent_error: 1, infra_error: 1, cancelled: 1 } });
  });
});

describe('ended tasks (completed GRPO groups)', () => {
  it('lists tasks whose every session ended with a status other than cancelled, all or one task', () => {
    const store = openStore(':memory:');
    try {
      const run = seed(store, 3, 2);
      const [a0, a1, b0, b1, c0, c1] = store.runs.sessions(run.id);
      expect(store.runs.endedTasks(run.id)).toEqual([]);
      store.runs.finishSession(a0!.id, { status: 'completed' });
      expect(store.runs.endedTasks(run.id)).toEqual([]);
      store.runs.finishSession(a1!.id, { status: 'infra_error' });
      store.runs.finishSession(b0!.id, { status: 'completed' });
      store.runs.finishSession(b1!.id, { status: 'cancelled', reason: 'interrupted' });
      store.runs.finishSession(c0!.id, { status: 'timeout' });
      store.runs.finishSession(c1!.id, { status: 'agent_error' });
      const tasks = store.runs.tasks(run.id);
      expect(store.runs.endedTasks(run.id)).toEqual([
        { taskId: tasks[0]!.id, instanceId: 'repo__x-0' },
        { taskId: tasks[2]!.id, instanceId: 'repo__x-2' },
      ]);
      expect(store.runs.endedTasks(run.id, 'repo__x-2')).toEqual([{ taskId: tasks[2]!.id, instanceId: 'repo__x-2' }]);
      expect(store.runs.endedTasks(run.id, 'repo__x-1')).toEqual([]);
      expect(store.runs.stageCounts(run.id)).toEqual({ done: 6 });
      store.runs.resetSession(a0!.id);
      expect(store.runs.stageCounts(run.id)).toEqual({ done: 5, queued: 1 });
    } finally {
      store.close();
    }
  });
});

describe('the tail of a serve batch (open sessions, task count)', () => {
  const temp = useTempDirs();

  it('lists the sessions not ended as a complete group counts them, in task then sample order, and counts tasks, on a database file', () => {
    const store = openStore(path.join(temp(), 'polar.db'));
    try {
      const run = seed(store, 4, 3);
      const other = store.runs.create({ name: 'other', harness: 'pi', datasetPath: '/d.jsonl', upstream: 'sim:oracle', samples: 1, config: {}, ownerPid: 1, ownerHost: 'h' });
      const elsewhere = store.runs.addSession(other.id, store.runs.addTask(other.id, 'repo__y-0', {}).id, 0, true);
      const [a0, a1, a2, b0, b1, b2, c0, c1, c2, d0, d1, d2] = store.runs.sessions(run.id);
      // a: every way to have ended (a complete group); b: cancelled ones (an interruption, the tail cut) are open;
      // c: a queued, a running and a done-without-status session are open; d: nothing happened yet.
      store.runs.finishSession(a0!.id, { status: 'completed' });
      store.runs.finishSession(a1!.id, { status: 'infra_error' });
      store.runs.finishSession(a2!.id, { status: 'timeout' });
      store.runs.finishSession(b0!.id, { status: 'completed' });
      store.runs.finishSession(b1!.id, { status: 'cancelled', reason: 'interrupted' });
      store.runs.finishSession(b2!.id, { status: 'cancelled', reason: 'tail_cancelled' });
      store.runs.setStage(c1!.id, 'running');
      store.runs.setStage(c2!.id, 'done');
      store.runs.finishSession(elsewhere.id, { status: 'cancelled', reason: 'interrupted' });
      expect(store.runs.openSessionIds(run.id)).toEqual([b1, b2, c0, c1, c2, d0, d1, d2].map((session) => session!.id));
      // The same sessions the old in-memory plan picked: every session of the run that is not (done, status, not cancelled).
      const ended = (session: { stage: string; status: string | null }) => session.stage === 'done' && session.status !== null && session.status !== 'cancelled';
      expect(store.runs.openSessionIds(run.id)).toEqual([...store.runs.iterateSessionSummaries(run.id)].filter((session) => !ended(session)).map((session) => session.id));
      // Complete groups are the ended tasks: the open sessions are all in the others.
      const complete = new Set(store.runs.endedTasks(run.id).map((task) => task.taskId));
      expect(complete).toEqual(new Set([a0!.taskId]));
      expect(store.runs.openSessionIds(run.id).every((id) => !complete.has(store.runs.session(id)!.taskId))).toBe(true);
      expect(store.runs.taskCount(run.id)).toBe(4);
      expect(store.runs.taskCount(run.id)).toBe(store.runs.tasks(run.id).length);
      expect(store.runs.taskCount(other.id)).toBe(1);
      expect(store.runs.taskCount(9_999)).toBe(0);
      expect(store.runs.openSessionIds(9_999)).toEqual([]);
    } finally {
      store.close();
    }
  });
});

describe('per-session call totals', () => {
  it('are read from a covering index, never from the call rows and their blobs', () => {
    const db = openDatabase(':memory:');
    try {
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT ${SESSION_CALL_TOTALS} FROM sessions s WHERE s.run_id = 1`).all() as { detail: string }[];
      const callScans = plan.map((row) => row.detail).filter((detail) => /\bc\b/.test(detail));
      expect(callScans).toHaveLength(5);
      for (const detail of callScans) expect(detail).toMatch(/USING COVERING INDEX calls_totals/);
    } finally {
      db.close();
    }
  });
});
