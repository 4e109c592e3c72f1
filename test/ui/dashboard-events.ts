// Builders for the rollout events the dashboard tests feed the reducer.
import type { RolloutEvent, SessionPhase } from '../../src/rollout/rollout-events.js';
import type { RolloutMetricsEvent } from '../../src/rollout/rollout-metrics.js';
import type { SessionStage, SessionStatus } from '../../src/store/run-repository.js';

export function runStart(sessions: number, overrides: Partial<Extract<RolloutEvent, { type: 'run-start' }>> = {}): RolloutEvent {
  return {
    type: 'run-start',
    runId: 3,
    runName: 'swe-small',
    dbPath: '/home/ada/.local/share/polar/polar.sqlite',
    sessions,
    harness: 'codex',
    upstream: 'http://127.0.0.1:8000',
    resumed: false,
    ...overrides,
  };
}

export function stage(sessionId: number, stageName: SessionStage): RolloutEvent {
  return { type: 'session-stage', sessionId, instanceId: `repo__task-${sessionId}`, sampleIndex: 0, stage: stageName };
}

export function phase(sessionId: number, phaseName: SessionPhase, ms: number): RolloutEvent {
  return { type: 'session-phase', sessionId, phase: phaseName, ms };
}

export function end(sessionId: number, status: SessionStatus, detail: string | null = null): RolloutEvent {
  return {
    type: 'session-end',
    sessionId,
    instanceId: `repo__task-${sessionId}`,
    sampleIndex: 0,
    status,
    detail,
    patchBytes: 120,
    calls: 4,
    timings: { agent: 1_000 },
    reward: status === 'completed' ? 1 : null,
  };
}

export function runEnd(counts: Partial<Record<SessionStatus, number>>, wallMs: number): RolloutEvent {
  return { type: 'run-end', runId: 3, runName: 'swe-small', counts, wallMs };
}

export function metrics(overrides: Partial<RolloutMetricsEvent> = {}): RolloutMetricsEvent {
  return {
    type: 'metrics',
    at: 1_760_000_000_000,
    stageCounts: { queued: 30, init: 2, ready: 0, running: 5, post: 1, done: 2 },
    total: 40,
    sessionsPerMinute: 2.5,
    tokensPerSecond: 1234.4,
    modelBusyFraction: 0.873,
    meanInFlight: 5.64,
    rewards: { n: 2, mean: 0.5 },
    ...overrides,
  };
}
