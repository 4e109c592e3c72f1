// The live dashboard's state: a pure reducer over rollout events and metrics snapshots.
import type { RolloutEvent } from '../rollout/rollout-events.js';
import type { RolloutMetricsEvent } from '../rollout/rollout-metrics.js';
import type { SessionStage, SessionStatus } from '../store/run-repository.js';

/** Everything the dashboard listens to. */
export type DashboardEvent = RolloutEvent | RolloutMetricsEvent;

/** Display order of session stages. */
export const DASHBOARD_STAGES: readonly SessionStage[] = ['queued', 'init', 'ready', 'running', 'post', 'done'];

/** Display order of session statuses. */
export const DASHBOARD_STATUSES: readonly SessionStatus[] = ['completed', 'agent_error', 'timeout', 'infra_error', 'eval_error', 'cancelled'];

/** How many failures the dashboard keeps. */
export const RECENT_FAILURE_LIMIT = 5;

/** A session that ended with any status but `completed`. */
export interface DashboardFailure {
  sessionId: number;
  instanceId: string;
  sampleIndex: number;
  status: SessionStatus;
  /** Why it failed, as the rollout reported it; null when it gave no reason. */
  detail: string | null;
}

export interface DashboardRun {
  runId: number;
  runName: string;
  /** The SQLite file holding the run's data. */
  dbPath: string;
  harness: string;
  upstream: string;
  resumed: boolean;
}

export interface DashboardState {
  /** Null until `run-start`. */
  run: DashboardRun | null;
  /** The latest image pull status, shown while the run has not started. */
  image: { image: string; status: string } | null;
  totalSessions: number;
  stageCounts: Readonly<Record<SessionStage, number>>;
  /** Sessions that ended, by status. */
  statusCounts: Readonly<Record<SessionStatus, number>>;
  /** The last stage seen for each session (sessions never seen are `queued`). */
  sessionStages: ReadonlyMap<number, SessionStage>;
  /** Newest first, at most RECENT_FAILURE_LIMIT. */
  recentFailures: readonly DashboardFailure[];
  /** The latest metrics snapshot; null until the first one. */
  metrics: RolloutMetricsEvent | null;
  /** Set by `run-end`. */
  finished: { wallMs: number } | null;
}

export function createDashboardState(): DashboardState {
  return {
    run: null,
    image: null,
    totalSessions: 0,
    stageCounts: zeroCounts(DASHBOARD_STAGES),
    statusCounts: zeroCounts(DASHBOARD_STATUSES),
    sessionStages: new Map(),
    recentFailures: [],
    metrics: null,
    finished: null,
  };
}

export function reduceDashboard(state: DashboardState, event: DashboardEvent): DashboardState {
  switch (event.type) {
    case 'run-start': {
      const { runId, runName, dbPath, harness, upstream, resumed } = event;
      return {
        ...createDashboardState(),
        run: { runId, runName, dbPath, harness, upstream, resumed },
        totalSessions: event.sessions,
        stageCounts: { ...zeroCounts(DASHBOARD_STAGES), queued: event.sessions },
      };
    }
    case 'image-progress':
      return { ...state, image: { image: event.image, status: `${event.status}${onHost(event.host)}` } };
    case 'image-ready':
      return { ...state, image: { image: event.image, status: `${event.source === 'pulled' ? 'pulled' : 'present'}${onHost(event.host)}` } };
    case 'image-failed':
      return { ...state, image: { image: event.image, status: `failed (${event.attempt}/${event.attempts})${onHost(event.host)}: ${event.error}` } };
    // Hosts are shown from the metrics snapshots (`metrics.hosts`), which carry their slots and sessions.
    case 'host':
    case 'session-host':
      return state;
    case 'run-failed':
      return state;
    case 'session-stage':
      return moveSession(state, event.sessionId, event.stage);
    case 'session-phase':
      return state;
    case 'session-end': {
      const moved = moveSession(state, event.sessionId, 'done');
      const statusCounts = { ...moved.statusCounts, [event.status]: moved.statusCounts[event.status] + 1 };
      if (event.status === 'completed') return { ...moved, statusCounts };
      const failure: DashboardFailure = {
        sessionId: event.sessionId,
        instanceId: event.instanceId,
        sampleIndex: event.sampleIndex,
        status: event.status,
        detail: event.detail,
      };
      return { ...moved, statusCounts, recentFailures: [failure, ...moved.recentFailures].slice(0, RECENT_FAILURE_LIMIT) };
    }
    case 'metrics':
      return { ...state, metrics: event, totalSessions: event.total, stageCounts: { ...event.stageCounts } };
    case 'run-end': {
      // The store's totals are the truth; nothing is in flight once the run has ended.
      const statusCounts = Object.fromEntries(DASHBOARD_STATUSES.map((status) => [status, event.counts[status] ?? 0])) as Record<SessionStatus, number>;
      const ended = countEnded(statusCounts);
      const totalSessions = Math.max(state.totalSessions, ended);
      const stageCounts = { ...zeroCounts(DASHBOARD_STAGES), queued: totalSessions - ended, done: ended };
      return { ...state, totalSessions, stageCounts, statusCounts, finished: { wallMs: event.wallMs } };
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

function onHost(host: string | undefined): string {
  return host === undefined ? '' : ` on ${host}`;
}

/** Sessions that reached `done`, for the progress bar. */
export function countDoneSessions(state: DashboardState): number {
  return Math.max(state.stageCounts.done, countEnded(state.statusCounts));
}

function countEnded(statusCounts: Readonly<Record<SessionStatus, number>>): number {
  return DASHBOARD_STATUSES.reduce((sum, status) => sum + statusCounts[status], 0);
}

function moveSession(state: DashboardState, sessionId: number, stage: SessionStage): DashboardState {
  const previous = state.sessionStages.get(sessionId) ?? 'queued';
  if (previous === stage) return state;
  const stageCounts = { ...state.stageCounts };
  stageCounts[previous] = Math.max(0, stageCounts[previous] - 1);
  stageCounts[stage] += 1;
  const sessionStages = new Map(state.sessionStages).set(sessionId, stage);
  return { ...state, stageCounts, sessionStages };
}

function zeroCounts<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
}
