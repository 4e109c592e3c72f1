import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionStage, SessionStatus } from '../../src/store/run-repository.js';
import {
  countDoneSessions,
  createDashboardState,
  DASHBOARD_STAGES,
  reduceDashboard,
  type DashboardEvent,
  type DashboardState,
} from '../../src/ui/dashboard-state.js';
import { end, metrics, phase, runEnd, runStart, stage } from './dashboard-events.js';

const reduceAll = (events: DashboardEvent[], from: DashboardState = createDashboardState()): DashboardState => events.reduce(reduceDashboard, from);

const stages = (counts: Partial<Record<SessionStage, number>>): Record<SessionStage, number> => ({
  queued: 0,
  init: 0,
  ready: 0,
  running: 0,
  post: 0,
  done: 0,
  ...counts,
});

const statuses = (counts: Partial<Record<SessionStatus, number>>): Record<SessionStatus, number> => ({
  completed: 0,
  agent_error: 0,
  timeout: 0,
  infra_error: 0,
  eval_error: 0,
  cancelled: 0,
  ...counts,
});

describe('reduceDashboard: stage and status counts', () => {
  it.each<{ name: string; events: DashboardEvent[]; stageCounts: Record<SessionStage, number>; statusCounts: Record<SessionStatus, number>; total: number }>([
    { name: 'nothing yet', events: [], stageCounts: stages({}), statusCounts: statuses({}), total: 0 },
    { name: 'run-start queues every session', events: [runStart(4)], stageCounts: stages({ queued: 4 }), statusCounts: statuses({}), total: 4 },
    {
      name: 'stages move one session at a time',
      events: [runStart(4), stage(1, 'init'), stage(2, 'init'), stage(1, 'running')],
      stageCounts: stages({ queued: 2, init: 1, running: 1 }),
      statusCounts: statuses({}),
      total: 4,
    },
    {
      name: 'a repeated stage counts once',
      events: [runStart(2), stage(1, 'init'), stage(1, 'init')],
      stageCounts: stages({ queued: 1, init: 1 }),
      statusCounts: statuses({}),
      total: 2,
    },
    {
      name: 'session-end moves the session to done and counts its status',
      events: [runStart(3), stage(1, 'init'), stage(1, 'running'), stage(1, 'post'), end(1, 'completed'), stage(2, 'init'), end(2, 'infra_error', 'no image')],
      stageCounts: stages({ queued: 1, done: 2 }),
      statusCounts: statuses({ completed: 1, infra_error: 1 }),
      total: 3,
    },
    {
      name: 'phases change nothing',
      events: [runStart(1), stage(1, 'init'), phase(1, 'create', 850)],
      stageCounts: stages({ init: 1 }),
      statusCounts: statuses({}),
      total: 1,
    },
    {
      name: 'a metrics snapshot replaces the counts and the total (resumed run)',
      events: [runStart(10, { resumed: true }), stage(1, 'init'), metrics({ stageCounts: stages({ queued: 3, init: 1, done: 6 }), total: 10 })],
      stageCounts: stages({ queued: 3, init: 1, done: 6 }),
      statusCounts: statuses({}),
      total: 10,
    },
    {
      name: 'stage events after a snapshot move from the snapshot',
      events: [runStart(10), stage(1, 'init'), metrics({ stageCounts: stages({ queued: 3, init: 1, done: 6 }), total: 10 }), stage(1, 'running'), stage(2, 'init')],
      stageCounts: stages({ queued: 2, init: 1, running: 1, done: 6 }),
      statusCounts: statuses({}),
      total: 10,
    },
    {
      name: 'counts never go below zero for sessions the dashboard never saw queued',
      events: [stage(7, 'init')],
      stageCounts: stages({ init: 1 }),
      statusCounts: statuses({}),
      total: 0,
    },
    {
      name: 'run-end replaces the status counts with the store totals and empties the stages in flight',
      events: [runStart(3), stage(2, 'running'), end(1, 'completed'), runEnd({ completed: 2, timeout: 1 }, 65_000)],
      stageCounts: stages({ done: 3 }),
      statusCounts: statuses({ completed: 2, timeout: 1 }),
      total: 3,
    },
    {
      name: 'an interrupted run leaves the sessions it never ran queued',
      events: [runStart(5), stage(1, 'running'), stage(2, 'init'), runEnd({ completed: 1, cancelled: 1 }, 9_000)],
      stageCounts: stages({ queued: 3, done: 2 }),
      statusCounts: statuses({ completed: 1, cancelled: 1 }),
      total: 5,
    },
  ])('$name', ({ events, stageCounts, statusCounts, total }) => {
    const state = reduceAll(events);
    expect(state.stageCounts).toEqual(stageCounts);
    expect(state.statusCounts).toEqual(statusCounts);
    expect(state.totalSessions).toBe(total);
  });
});

describe('reduceDashboard: run, image, metrics, failures', () => {
  it('records the run from run-start', () => {
    expect(reduceAll([runStart(4, { resumed: true })]).run).toEqual({
      runId: 3,
      runName: 'swe-small',
      dbPath: '/home/ada/.local/share/polar/polar.sqlite',
      harness: 'codex',
      upstream: 'http://127.0.0.1:8000',
      resumed: true,
    });
  });

  it('keeps the latest image status', () => {
    const state = reduceAll([
      { type: 'image-progress', image: 'swebench/sweb.eval.x86_64.django_1776_django-11099', status: 'abc Downloading' },
      { type: 'image-progress', image: 'swebench/sweb.eval.x86_64.django_1776_django-11099', status: 'abc Pull complete' },
    ]);
    expect(state.image).toEqual({ image: 'swebench/sweb.eval.x86_64.django_1776_django-11099', status: 'abc Pull complete' });
  });

  it('keeps the latest metrics snapshot', () => {
    const latest = metrics({ at: 2, tokensPerSecond: 99 });
    expect(reduceAll([runStart(40), metrics({ at: 1 }), latest]).metrics).toEqual(latest);
  });

  it('keeps the last five failures, newest first, with their reasons; completed sessions are not failures', () => {
    const failures: DashboardEvent[] = [1, 2, 3, 4, 5, 6, 7].map((id) => end(id, id % 2 === 0 ? 'timeout' : 'agent_error', `reason ${id}`));
    const state = reduceAll([runStart(8), ...failures, end(8, 'completed')]);
    expect(state.recentFailures.map((failure) => [failure.sessionId, failure.status, failure.detail])).toEqual([
      [7, 'agent_error', 'reason 7'],
      [6, 'timeout', 'reason 6'],
      [5, 'agent_error', 'reason 5'],
      [4, 'timeout', 'reason 4'],
      [3, 'agent_error', 'reason 3'],
    ]);
    expect(state.recentFailures[0]).toEqual({ sessionId: 7, instanceId: 'repo__task-7', sampleIndex: 0, status: 'agent_error', detail: 'reason 7' });
  });

  it('marks the run finished on run-end', () => {
    expect(reduceAll([runStart(1)]).finished).toBeNull();
    expect(reduceAll([runStart(1), runEnd({ completed: 1 }, 1_234)]).finished).toEqual({ wallMs: 1_234 });
  });

  it('run-start starts from a clean slate', () => {
    const first = reduceAll([runStart(2), end(1, 'agent_error', 'boom'), metrics(), runEnd({ agent_error: 1 }, 10)]);
    const second = reduceAll([runStart(5, { runId: 4, runName: 'second' })], first);
    expect(second.recentFailures).toEqual([]);
    expect(second.metrics).toBeNull();
    expect(second.finished).toBeNull();
    expect(second.statusCounts).toEqual(statuses({}));
    expect(second.stageCounts).toEqual(stages({ queued: 5 }));
    expect(second.run?.runName).toBe('second');
  });

  it('returns the same state for events that change nothing', () => {
    const state = reduceAll([runStart(1), stage(1, 'init')]);
    expect(reduceDashboard(state, phase(1, 'create', 5))).toBe(state);
    expect(reduceDashboard(state, stage(1, 'init'))).toBe(state);
  });

  it('never mutates the state it is given', () => {
    const before = reduceAll([runStart(3), stage(1, 'init'), end(2, 'timeout', 'late')]);
    const snapshot = structuredClone(before);
    for (const event of [stage(1, 'running'), end(1, 'agent_error', 'x'), metrics(), runEnd({ completed: 3 }, 5), runStart(9)]) reduceDashboard(before, event);
    expect(before).toEqual(snapshot);
  });
});

describe('countDoneSessions', () => {
  it.each<{ name: string; events: DashboardEvent[]; done: number }>([
    { name: 'no sessions', events: [], done: 0 },
    { name: 'ended sessions', events: [runStart(4), end(1, 'completed'), end(2, 'timeout')], done: 2 },
    { name: 'a snapshot that knows of sessions done before a resume', events: [runStart(10), end(1, 'completed'), metrics({ stageCounts: stages({ queued: 3, done: 7 }), total: 10 })], done: 7 },
    { name: 'store totals at run-end', events: [runStart(10), runEnd({ completed: 8, agent_error: 2 }, 100)], done: 10 },
  ])('$name', ({ events, done }) => {
    expect(countDoneSessions(reduceAll(events))).toBe(done);
  });
});

describe('reduceDashboard: invariants over random schedules', () => {
  it('stage counts always sum to the total and never go negative', () => {
    const sessions = 6;
    const eventArbitrary = fc.oneof(
      fc.record({ id: fc.integer({ min: 1, max: sessions }), stage: fc.constantFrom<SessionStage>(...DASHBOARD_STAGES.filter((name) => name !== 'done')) }).map(({ id, stage: name }) => stage(id, name)),
      fc.record({ id: fc.integer({ min: 1, max: sessions }), status: fc.constantFrom<SessionStatus>('completed', 'agent_error', 'timeout') }).map(({ id, status }) => end(id, status, 'why')),
    );
    fc.assert(
      fc.property(fc.array(eventArbitrary, { maxLength: 40 }), (events) => {
        const state = reduceAll([runStart(sessions), ...events]);
        const counts = DASHBOARD_STAGES.map((name) => state.stageCounts[name]);
        expect(counts.every((count) => count >= 0)).toBe(true);
        expect(counts.reduce((sum, count) => sum + count, 0)).toBe(sessions);
        expect(state.recentFailures.length).toBeLessThanOrEqual(5);
      }),
    );
  });
});
