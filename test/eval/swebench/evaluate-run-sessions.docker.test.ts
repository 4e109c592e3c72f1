// evaluateRunSessions on a store filled by hand: rewards 1 / 0 / null by outcome, the stored verdict,
// which sessions are evaluated, re-evaluation rules, and records stored the way `polar rollout` stores them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/errors.js';
import { evaluateRunSessions, type SessionEvalEvent } from '../../../src/eval/swebench/evaluate-run-sessions.js';
import { evaluateSessionPatch } from '../../../src/eval/swebench/evaluate-session-patch.js';
import { recordToRow } from '../../../src/eval/swebench/record-to-row.js';
import type { SwebenchRecord } from '../../../src/eval/swebench/swebench-record.js';
import type { ContainerRuntime } from '../../../src/runtime/container-runtime.js';
import { runFilter } from '../../../src/runtime/labels.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import type { SessionStatus } from '../../../src/store/run-repository.js';
import { dockerForTests } from '../../runtime/docker-test-support.js';
import { buildExampleImages, exampleRecordRow, exampleRecords, PATCHES } from './example-instances.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();
const RUN_NAME = `eval-sessions-test-${process.pid}`;

interface Planned {
  name: string;
  task: 1 | 2;
  status: SessionStatus | 'running';
  patch: (record: SwebenchRecord) => string | null;
  /** undefined: the session is skipped and keeps no reward. */
  expected?: { outcome: string; reward: number | null };
}

const PLAN: Planned[] = [
  { name: 'gold, completed', task: 1, status: 'completed', patch: (r) => r.patch, expected: { outcome: 'resolved', reward: 1 } },
  { name: 'wrong, agent_error', task: 1, status: 'agent_error', patch: () => PATCHES.wrong, expected: { outcome: 'unresolved', reward: 0 } },
  { name: 'gold, timeout', task: 1, status: 'timeout', patch: (r) => r.patch, expected: { outcome: 'resolved', reward: 1 } },
  { name: 'empty patch', task: 1, status: 'completed', patch: () => '', expected: { outcome: 'empty', reward: 0 } },
  { name: 'no patch', task: 1, status: 'agent_error', patch: () => null, expected: { outcome: 'empty', reward: 0 } },
  { name: 'not applying', task: 1, status: 'completed', patch: () => PATCHES.notApplying, expected: { outcome: 'error', reward: null } },
  { name: 'infra_error', task: 1, status: 'infra_error', patch: (r) => r.patch },
  { name: 'cancelled', task: 1, status: 'cancelled', patch: (r) => r.patch },
  { name: 'still running', task: 1, status: 'running', patch: (r) => r.patch },
  { name: 'gold, task stored as polar rollout stores it', task: 2, status: 'completed', patch: (r) => r.patch, expected: { outcome: 'resolved', reward: 1 } },
];

describe.skipIf(runtime === undefined)('evaluateRunSessions (Docker)', () => {
  const docker = runtime as ContainerRuntime;
  let dir: string;
  let store: Store;
  let records: SwebenchRecord[];
  const sessionIds: number[] = [];

  beforeAll(async () => {
    records = exampleRecords(2);
    await buildExampleImages(docker, records);
    dir = mkdtempSync(path.join(tmpdir(), 'polar-eval-sessions-'));
    store = openStore(path.join(dir, 'polar.db'));
    const run = store.runs.create({ name: RUN_NAME, harness: 'pi', datasetPath: '/x.jsonl', upstream: 'sim:oracle', samples: 1, config: {}, ownerPid: process.pid, ownerHost: 'test' });
    // Task 1: the dataset row as in the file. Task 2: the parsed record written back with recordToRow, as
    // runRollout stores it (lists instead of JSON strings, `extra` fields at top level).
    const tasks = [store.runs.addTask(run.id, records[0]!.instance_id, exampleRecordRow(1)), store.runs.addTask(run.id, records[1]!.instance_id, recordToRow(records[1]!))];
    PLAN.forEach((planned, index) => {
      const session = store.runs.addSession(run.id, tasks[planned.task - 1]!.id, index, true);
      sessionIds.push(session.id);
      if (planned.status === 'running') store.runs.setStage(session.id, 'running');
      else store.runs.finishSession(session.id, { status: planned.status, patch: planned.patch(records[planned.task - 1]!) });
    });
  });

  afterAll(async () => {
    if (runtime !== undefined) await docker.removeContainers(runFilter(RUN_NAME));
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stores reward and verdict on every evaluable session and skips the others', async () => {
    const events: SessionEvalEvent[] = [];
    const result = await evaluateRunSessions(store, docker, RUN_NAME, { concurrency: 2, timeoutMs: 120_000, onEvent: (event) => events.push(event) });
    const evaluable = PLAN.filter((planned) => planned.expected !== undefined);
    expect(result.evaluated).toHaveLength(evaluable.length);
    expect(result.skipped.map((skip) => skip.reason)).toEqual(['status infra_error is not evaluated', 'status cancelled is not evaluated', 'not finished (stage running)']);
    PLAN.forEach((planned, index) => {
      const session = store.runs.session(sessionIds[index]!)!;
      if (planned.expected === undefined) {
        expect([planned.name, session.reward, session.evaluation]).toEqual([planned.name, null, null]);
        return;
      }
      expect([planned.name, session.reward, session.evaluation?.['outcome']]).toEqual([planned.name, planned.expected.reward, planned.expected.outcome]);
      const verdict = session.evaluation!;
      expect(Object.keys(verdict).sort()).toEqual(planned.expected.outcome === 'error' ? ['error', 'image', 'outcome', 'report', 'resolved', 'timings'] : ['image', 'outcome', 'report', 'resolved', 'timings']);
      expect(verdict['resolved']).toBe(planned.expected.outcome === 'resolved');
      expect(verdict['image']).toBe(`swebench/sweb.eval.x86_64.polar-example_1776_hello-${planned.task}:latest`);
      expect(Object.keys(verdict['timings'] as object)).toEqual(['setup', 'tests', 'teardown']);
      const report = verdict['report'] as Record<string, { resolved: boolean }> | null;
      if (planned.expected.outcome === 'resolved' || planned.expected.outcome === 'unresolved') {
        expect(report?.[records[planned.task - 1]!.instance_id]?.resolved).toBe(planned.expected.outcome === 'resolved');
      } else {
        expect(report).toBeNull();
      }
    });
    expect(events.filter((event) => event.type === 'session-eval-end').map((event) => event.type === 'session-eval-end' && event.done)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await docker.listContainers(runFilter(RUN_NAME))).toEqual([]);
  });

  it('evaluates again only sessions with an error verdict, unless asked to redo all', async () => {
    const again = await evaluateRunSessions(store, docker, RUN_NAME, { concurrency: 2, timeoutMs: 120_000 });
    expect(again.evaluated.map((session) => session.sessionId)).toEqual([sessionIds[5]]);
    const all = await evaluateRunSessions(store, docker, RUN_NAME, { concurrency: 2, timeoutMs: 120_000, reevaluate: true, instanceIds: [records[1]!.instance_id] });
    expect(all.evaluated.map((session) => [session.sessionId, session.reward])).toEqual([[sessionIds[9], 1]]);
  });

  it('an unknown run is a NotFoundError', async () => {
    await expect(evaluateRunSessions(store, docker, 'no-such-run', { concurrency: 1 })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('evaluateSessionPatch stores an eval error (reward null) for a record it cannot build eval.sh for', async () => {
    const record = { ...records[0]!, polar_spec: undefined, repo: 'unknown/repo' };
    const stored: unknown[] = [];
    const { reward, verdict } = await evaluateSessionPatch({ runtime: docker, runs: { setReward: (...args) => void stored.push(args) }, runName: RUN_NAME }, { id: 42, patch: record.patch }, record);
    expect(reward).toBeNull();
    expect(verdict).toMatchObject({ outcome: 'error', resolved: false, report: null });
    expect(verdict.error).toMatch(/cannot build an eval script/);
    expect(stored).toEqual([[42, null, verdict]]);
  });
});
