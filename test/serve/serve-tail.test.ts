// polar serve's batch target and tail (target_groups, tail wait | cancel | carry) over HTTP: the real engine,
// store and server on a real socket; sessions run in parallel in a Docker-free executor (fake-batch-executor.ts)
// so a test decides which ones are the slow tail. Nothing may be dropped: every session of a batch is in a
// delivered group, listed as excluded with its reason, or still running (carried).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeBatch } from '../../src/serve/describe-batch.js';
import { OPENAPI_DOCUMENT } from '../../src/serve/openapi-document.js';
import { BATCH_BODY } from '../../src/serve/parse-batch-body.js';
import type { RunSessionRow } from '../../src/store/run-repository.js';
import { fixtureRows, type FakeExecutor } from './fake-batch-executor.js';
import { startTestServe, TEST_SERVE_TOKEN as TOKEN, type TestServe } from '../helpers/start-test-serve.js';
import { until } from '../helpers/until.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Server = TestServe;

function start(dir: string, options: { maxBatches?: number; maxStaleness?: number } = {}): Promise<Server> {
  return startTestServe(dir, cleanups, { parallel: true, ...options });
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-tail-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Three tasks (the fixture's two and a copy of the first under another id): the third is the slow tail. */
const SLOW = 'django__django-11099-slow';
function threeTasks(): Record<string, unknown>[] {
  const rows = fixtureRows();
  return [...rows, { ...rows[0], instance_id: SLOW }];
}

/** Holds every session of the slow task until `release()`; the others finish at once. */
function holdSlow(fake: FakeExecutor): { release: () => void; started: () => number } {
  let started = 0;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  fake.gate.wait = (session: RunSessionRow) => {
    if (session.instanceId !== SLOW) return Promise.resolve();
    started += 1;
    return held;
  };
  return { release: () => release(), started: () => started };
}

const body = (extra: Record<string, unknown>) => ({ harness: 'pi', tasks: threeTasks(), samples: 2, sampling: { temperature: 1 }, ...extra });

async function batchWhen(h: Server, id: string, done: (batch: any) => boolean): Promise<any> {
  return until(async () => {
    const got = await h.call('GET', `/v1/rollouts/${id}`);
    return done(got.json) ? got.json : undefined;
  });
}

/** The id of the slow task's sample 0 in run `runId`. */
function slowFirst(h: Server, runId: number): number {
  return h.store.runs.sessions(runId).find((s) => s.instanceId === SLOW && s.sampleIndex === 0)!.id;
}

function rowsOf(text: string): any[] {
  return text.trim() === '' ? [] : text.trim().split('\n').map((line) => JSON.parse(line));
}

describe('polar serve: target_groups and the tail', () => {
  it('tail cancel: at the target the slow sessions are stopped, cancelled (tail_cancelled), excluded with their group, never delivered', async () => {
    const h = await start(tempDir());
    const slow = holdSlow(h.fake);
    const submitted = await h.call('POST', '/v1/rollouts', body({ target_groups: 2, tail: 'cancel' }));
    expect(submitted.status).toBe(202);
    const batch = await batchWhen(h, submitted.json.id, (b) => b.status === 'finished');
    expect(slow.started()).toBe(2);
    expect(batch).toMatchObject({ target_groups: 2, tail: 'cancel', target_reached: true, tail_counts: { complete: 2, cancelled: 2, carried: 0 } });
    expect(batch.status_reason).toMatch(/target reached: 2 complete groups of the 2 asked; 2 sessions cancelled \(tail: cancel\)/);
    expect(typeof batch.target_reached_at).toBe('string');
    expect(batch.sessions).toMatchObject({ total: 6, done: 6, by_status: { completed: 4, cancelled: 2 } });
    expect(batch.groups).toEqual({ total: 3, completed: 2 });
    // The stopped sessions are listed with their typed reason; their stored status says so too.
    const excluded = batch.excluded.map((e: any) => [e.instance_id, e.status, e.status_reason, e.reason]);
    expect(excluded).toEqual([
      [SLOW, 'cancelled', 'tail_cancelled', 'cancelled'],
      [SLOW, 'cancelled', 'tail_cancelled', 'cancelled'],
    ]);
    const run = h.store.runs.get(`serve-${submitted.json.id}`)!;
    const stored = h.store.runs.sessions(run.id).filter((s) => s.instanceId === SLOW);
    expect(stored.map((s) => [s.stage, s.status, s.statusReason])).toEqual([
      ['done', 'cancelled', 'tail_cancelled'],
      ['done', 'cancelled', 'tail_cancelled'],
    ]);
    expect(stored.every((s) => h.fake.runs.get(s.id) === undefined)).toBe(true);
    // Results: the two complete groups only; every session is delivered or excluded (nothing dropped).
    const results = await h.call('GET', `/v1/rollouts/${submitted.json.id}/results`);
    const rows = rowsOf(results.text);
    expect(results.headers.get('polar-groups')).toBe('2');
    expect(rows.some((row) => String(row.group_id).endsWith(SLOW))).toBe(false);
    const delivered = new Set(rows.map((row) => row.session_id as number));
    const listed = new Set(batch.excluded.map((e: any) => e.session_id as number));
    expect(delivered.size + listed.size).toBe(6);
    expect([...delivered].some((id) => listed.has(id))).toBe(false);
    // The event a trainer steps on, then the batch's end.
    const target = h.events.find((e) => e.type === 'target_reached');
    expect(target).toEqual({ type: 'target_reached', batchId: submitted.json.id, targetGroups: 2, tail: 'cancel', complete: 2, cancelled: 2, carried: 0 });
    expect(h.events.findIndex((e) => e.type === 'target_reached')).toBeLessThan(h.events.findIndex((e) => e.type === 'batch' && e.status === 'finished'));
  });

  it('tail cancel: a group one of whose samples ended before the cut is excluded as group-cut, not delivered partly', async () => {
    const h = await start(tempDir());
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(() => release());
    // The slow task's sample 0 finishes first, its sample 1 is the tail; the other groups finish after sample 0.
    h.fake.gate.wait = async (session) => {
      if (session.instanceId === SLOW) return session.sampleIndex === 1 ? held : undefined;
      await until(() => h.store.runs.session(slowFirst(h, session.runId))?.stage === 'done');
    };
    const { json } = await h.call('POST', '/v1/rollouts', body({ target_groups: 2, tail: 'cancel' }));
    const batch = await batchWhen(h, json.id, (b) => b.status === 'finished');
    expect(batch.tail_counts).toEqual({ complete: 2, cancelled: 1, carried: 0 });
    expect(batch.excluded.map((e: any) => [e.sample_index, e.status, e.status_reason, e.reason])).toEqual([
      [0, 'completed', 'agent_finished', 'group-cut'],
      [1, 'cancelled', 'tail_cancelled', 'cancelled'],
    ]);
    const rows = rowsOf((await h.call('GET', `/v1/rollouts/${json.id}/results`)).text);
    expect(new Set(rows.map((row) => row.session_id)).size + batch.excluded.length).toBe(6);
    expect(rows.some((row) => String(row.group_id).endsWith(SLOW))).toBe(false);
  });

  it('tail cancel with a target of every group cuts nothing: the batch ends as it would, target reached', async () => {
    const h = await start(tempDir());
    const { json } = await h.call('POST', '/v1/rollouts', body({ target_groups: 3, tail: 'cancel' }));
    const batch = await batchWhen(h, json.id, (b) => b.status === 'finished');
    expect(batch).toMatchObject({ status_reason: null, target_reached: true, tail_counts: { complete: 3, cancelled: 0, carried: 0 }, groups: { completed: 3 }, excluded: [] });
    expect(h.store.runs.get(`serve-${json.id}`)?.status).toBe('finished');
  });

  it('tail carry: the target is announced while the slow sessions run on; their group comes later through the cursor with its versions', async () => {
    const h = await start(tempDir(), { maxBatches: 1 });
    const slow = holdSlow(h.fake);
    const { json } = await h.call('POST', '/v1/rollouts', body({ target_groups: 2, tail: 'carry' }));
    const reached = await batchWhen(h, json.id, (b) => b.target_reached === true);
    expect(reached).toMatchObject({ status: 'running', tail: 'carry', tail_counts: { complete: 2, cancelled: 0, carried: 2 }, groups: { total: 3, completed: 2 }, excluded: [] });
    expect(h.events.find((e) => e.type === 'target_reached')).toMatchObject({ batchId: json.id, tail: 'carry', complete: 2, carried: 2, cancelled: 0 });
    const first = await h.call('GET', `/v1/rollouts/${json.id}/results`);
    expect(first.headers.get('polar-groups')).toBe('2');
    const cursor = first.headers.get('polar-next-cursor');
    // The trainer steps: pause, new weights (version 1), resume; a next batch starts although --max-batches is 1.
    await h.call('POST', '/v1/generation/pause', { drain_timeout_ms: 100 });
    await h.call('POST', '/v1/generation/resume', { policy_version: 1 });
    const next = await h.call('POST', '/v1/rollouts', { harness: 'pi', tasks: fixtureRows(), samples: 1 });
    await batchWhen(h, next.json.id, (b) => b.status === 'finished');
    expect((await h.call('GET', `/v1/rollouts/${json.id}`)).json.status).toBe('running');
    // The carried sessions finish under version 1: their group is delivered after the target, its rows say so.
    h.fake.callVersion = () => 1;
    slow.release();
    const done = await batchWhen(h, json.id, (b) => b.status === 'finished');
    expect(done).toMatchObject({ target_reached: true, tail_counts: { complete: 2, cancelled: 0, carried: 2 }, groups: { total: 3, completed: 3 }, excluded: [] });
    const later = rowsOf((await h.call('GET', `/v1/rollouts/${json.id}/results?cursor=${cursor}`)).text);
    expect(later).toHaveLength(2);
    expect(later.every((row) => String(row.group_id).endsWith(SLOW))).toBe(true);
    expect(later.map((row) => row.policy_versions)).toEqual([[1], [1]]);
    expect(h.events.filter((e) => e.type === 'target_reached')).toHaveLength(1);
  });

  it('tail wait (the default): the target is reported when reached, nothing is cut or announced, the batch ends with every group', async () => {
    const h = await start(tempDir());
    const slow = holdSlow(h.fake);
    const { json } = await h.call('POST', '/v1/rollouts', body({ target_groups: 2 }));
    const reached = await batchWhen(h, json.id, (b) => b.target_reached === true);
    expect(reached).toMatchObject({ status: 'running', tail: 'wait', target_groups: 2, tail_counts: { complete: 0, cancelled: 0, carried: 0 } });
    slow.release();
    const done = await batchWhen(h, json.id, (b) => b.status === 'finished');
    expect(done.groups).toEqual({ total: 3, completed: 3 });
    expect(h.events.some((e) => e.type === 'target_reached')).toBe(false);
    // Without target_groups the target is every group.
    const all = await h.call('POST', '/v1/rollouts', { harness: 'pi', tasks: fixtureRows(), samples: 1 });
    const whole = await batchWhen(h, all.json.id, (b) => b.status === 'finished');
    expect(whole).toMatchObject({ target_groups: 2, tail: 'wait', target_reached: true });
  });

  it('a restart keeps a carry decision: the batch resumes without a second announcement and delivers the carried group', async () => {
    const dir = tempDir();
    const first = await start(dir);
    holdSlow(first.fake);
    const { json } = await first.call('POST', '/v1/rollouts', body({ target_groups: 2, tail: 'carry' }));
    const reached = await batchWhen(first, json.id, (b) => b.target_reached === true);
    await first.close();
    const second = await start(dir);
    const done = await batchWhen(second, json.id, (b) => b.status === 'finished');
    expect(done).toMatchObject({ tail: 'carry', target_groups: 2, target_reached_at: reached.target_reached_at, tail_counts: { complete: 2, carried: 2, cancelled: 0 }, groups: { completed: 3 } });
    expect(second.fake.starts).toMatchObject([{ runName: `serve-${json.id}`, resume: true }]);
    expect(second.events.some((e) => e.type === 'target_reached')).toBe(false);
  });

  it('a restart after a cancel decision (killed before the cut was marked) finishes the cut without running the batch again', async () => {
    const dir = tempDir();
    const first = await start(dir);
    // The first server decides and stops the run, but its executor never returns (as if killed right then).
    let unblock: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => (unblock = resolve));
    first.fake.beforeReturn = () => stuck;
    cleanups.push(() => unblock());
    holdSlow(first.fake);
    const { json } = await first.call('POST', '/v1/rollouts', body({ target_groups: 2, tail: 'cancel' }));
    await until(() => first.store.batches.get(json.id)?.tailDecision ?? undefined);
    expect(first.store.batches.get(json.id)?.status).toBe('running');
    const second = await start(dir);
    const done = await batchWhen(second, json.id, (b) => b.status === 'finished');
    expect(done).toMatchObject({ tail: 'cancel', target_reached: true, tail_counts: { complete: 2, cancelled: 2, carried: 0 }, groups: { total: 3, completed: 2 } });
    expect(second.fake.starts).toEqual([]);
    expect(done.excluded.map((e: any) => e.status_reason)).toEqual(['tail_cancelled', 'tail_cancelled']);
  });

  it('session ends read no batch row, task record or group row: the active batch holds its target, tail and decision', async () => {
    const h = await start(tempDir());
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(() => release());
    h.fake.gate.wait = () => held;
    const row = fixtureRows()[0]!;
    const tasks = Array.from({ length: 5 }, (_, index) => ({ ...row, instance_id: `${String(row['instance_id'])}-${index}` }));
    const { json } = await h.call('POST', '/v1/rollouts', { harness: 'pi', tasks, samples: 2, target_groups: 4, tail: 'carry' });
    const running = () => h.events.filter((e) => e.type === 'session' && e.event.type === 'session-stage' && e.event.stage === 'running').length;
    await until(() => running() === 10);
    // From here on only session ends happen (all 10 released at once, in task order).
    const reads = {
      batch: vi.spyOn(h.store.batches, 'get'),
      batches: vi.spyOn(h.store.batches, 'list'),
      unfinished: vi.spyOn(h.store.batches, 'unfinished'),
      groups: vi.spyOn(h.store.batches, 'groups'),
      tasks: vi.spyOn(h.store.runs, 'tasks'),
      run: vi.spyOn(h.store.runs, 'get'),
      sessions: vi.spyOn(h.store.runs, 'iterateSessionSummaries'),
    };
    release();
    await until(() => h.events.some((e) => e.type === 'batch' && e.batchId === json.id && e.status === 'finished'));
    expect(h.events.filter((e) => e.type === 'session' && e.event.type === 'session-end')).toHaveLength(10);
    expect(h.events.find((e) => e.type === 'target_reached')).toEqual({ type: 'target_reached', batchId: json.id, targetGroups: 4, tail: 'carry', complete: 4, cancelled: 0, carried: 2 });
    expect(h.store.batches.tailDecision(json.id)).toMatchObject({ policy: 'carry', completeTaskIds: expect.any(Array), carried: expect.any(Array) });
    // Neither the batch's row (its request, tasks inline) nor its run's task records are read at a session end.
    expect(reads.batch).not.toHaveBeenCalled();
    expect(reads.batches).not.toHaveBeenCalled();
    expect(reads.tasks).not.toHaveBeenCalled();
    expect(reads.sessions).not.toHaveBeenCalled();
    // The group rows once, when the decision is taken (its complete task ids); before it only their count.
    expect(reads.groups).toHaveBeenCalledTimes(1);
    // Batch-level events only: the run is looked up until found (then kept), open batches at a schedule (the
    // carry decision frees a place, the batch's end) — never once per session end.
    expect(reads.run.mock.calls.length).toBeLessThanOrEqual(2);
    expect(reads.unfinished.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it.each([
    ['target_groups 0', { target_groups: 0 }, /target_groups/],
    ['target_groups not an integer', { target_groups: 1.5 }, /target_groups/],
    ['target_groups over the groups', { target_groups: 4 }, /target_groups is 4 but the batch has 3 groups/],
    ['an unknown tail', { target_groups: 2, tail: 'drop' }, /tail/],
    ['tail cancel without target_groups', { tail: 'cancel' }, /needs target_groups/],
  ])('answers 400 invalid_request with a hint for %s', async (_what, extra, message) => {
    const h = await start(tempDir());
    const response = await h.call('POST', '/v1/rollouts', body(extra));
    expect(response.status).toBe(400);
    expect(response.json.error.type).toBe('invalid_request');
    expect(response.json.error.message).toMatch(message);
    expect(response.json.error.hint).toEqual(expect.any(String));
    expect(h.store.batches.list()).toEqual([]);
  });

  it('makes target_groups and tail part of the idempotent body: the same key with another target is a 409', async () => {
    const h = await start(tempDir());
    holdSlow(h.fake);
    const send = (extra: Record<string, unknown>) =>
      fetch(`${h.serve.url}/v1/rollouts`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': 'step-1' }, body: JSON.stringify(body(extra)) });
    const first = await send({ target_groups: 2, tail: 'carry' });
    const again = await send({ target_groups: 2, tail: 'carry' });
    const other = await send({ target_groups: 2, tail: 'cancel' });
    expect([first.status, again.status, other.status]).toEqual([202, 200, 409]);
  });

  it('sends target_reached on /v1/events', async () => {
    const h = await start(tempDir());
    holdSlow(h.fake);
    const controller = new AbortController();
    cleanups.push(() => controller.abort());
    const response = await fetch(`${h.serve.url}/v1/events`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: controller.signal });
    const reader = response.body!.getReader();
    let text = '';
    const { json } = await h.call('POST', '/v1/rollouts', body({ target_groups: 2, tail: 'carry' }));
    while (!text.includes('event: target_reached')) text += new TextDecoder().decode((await reader.read()).value);
    const data = /event: target_reached\ndata: (.*)\n/.exec(text)?.[1];
    expect(JSON.parse(data!)).toEqual({ type: 'target_reached', batchId: json.id, targetGroups: 2, tail: 'carry', complete: 2, cancelled: 0, carried: 2 });
  });

  it('documents target_groups, tail and the target fields in /openapi.json', async () => {
    const request = OPENAPI_DOCUMENT.components.schemas.BatchRequest.properties;
    expect(Object.keys(request).sort()).toEqual(Object.keys(BATCH_BODY.shape).sort());
    expect(request.tail.enum).toEqual(['wait', 'cancel', 'carry']);
    const h = await start(tempDir());
    const { json } = await h.call('POST', '/v1/rollouts', body({ target_groups: 2 }));
    const described = Object.keys(describeBatch(h.store, h.store.batches.get(json.id)!));
    expect(described.filter((key) => !(key in OPENAPI_DOCUMENT.components.schemas.Batch.properties))).toEqual([]);
  });

  it('ahead-start: a batch submitted while generation is paused starts its sessions; only a batch past --max-staleness waits', async () => {
    const h = await start(tempDir(), { maxStaleness: 0 });
    h.fake.gate.wait = () => new Promise(() => undefined); // agents running, their calls would be held at the gateway
    await h.call('POST', '/v1/generation/pause', { drain_timeout_ms: 0 });
    const fresh = await h.call('POST', '/v1/rollouts', { harness: 'pi', tasks: fixtureRows(), samples: 2 });
    await batchWhen(h, fresh.json.id, (b) => b.sessions.running === 4);
    expect((await h.call('GET', '/v1/status')).json.generation).toMatchObject({ paused: true, stale_waiting: 0 });
    // A batch of an older policy than --max-staleness allows does not start, paused or not.
    await h.call('POST', '/v1/generation/resume', { policy_version: 1 });
    await h.call('POST', '/v1/generation/pause', { drain_timeout_ms: 0 });
    const stale = await h.call('POST', '/v1/rollouts', { harness: 'pi', tasks: fixtureRows(), samples: 1, policy_version: 0 });
    await until(async () => ((await h.call('GET', '/v1/status')).json.generation.stale_waiting === 2 ? true : undefined));
    expect((await h.call('GET', `/v1/rollouts/${stale.json.id}`)).json.sessions.running).toBe(0);
    await h.call('DELETE', `/v1/rollouts/${stale.json.id}`);
    await h.call('DELETE', `/v1/rollouts/${fresh.json.id}`);
  });
});
