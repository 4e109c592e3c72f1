// Timings of an exported row: the session's stages and, from the captured calls, model and tool time.
import type { TraceStep } from '../trajectory/trace-steps.js';
import type { TrajectoryRow } from '../trajectory/trajectory-row.js';

/** Milliseconds; null when not stored. */
export interface RowTimings {
  /** The session's agent stage (harness start to exit), `sessions.timings.agent`. */
  agentMs: number | null;
  /** The session's init stage: container create + workspace prepare. */
  initMs: number | null;
  /** The session's evaluation (grading the patch); null when it was not evaluated. */
  evalMs: number | null;
  /** Sum over the row's calls of their latency (gateway receipt to capture complete; includes a wait while generation was paused). */
  modelMs: number;
  /**
   * Time in the row's window during which no model call of the session was in flight: tool runs and
   * harness work. The window runs from the end of the previous step of the row's trace (the start of the
   * row's first call for step 0) to the end of the row's last call, so a trace's tool time is the sum of
   * its rows' and is the same under both builders.
   */
  toolMs: number;
}

/** What the timings read of a call: when it was received and how long it took. */
export interface TimedCall {
  id: number;
  /** Epoch ms. */
  startedAt: number;
  latencyMs: number;
}

export type SessionStageTimings = Pick<RowTimings, 'agentMs' | 'initMs' | 'evalMs'>;

/** The phases of `sessions.timings` that rows report (the others: extract, teardown). */
export const ROW_TIMING_PHASES = ['create', 'prepare', 'agent', 'evaluate'] as const;

/** The stage timings of `sessions.timings` (phases create, prepare, agent, extract, evaluate, teardown). */
export function sessionStageTimings(timings: Readonly<Record<string, number>>): SessionStageTimings {
  const init = [timings.create, timings.prepare].filter((ms): ms is number => ms !== undefined);
  return {
    agentMs: timings.agent ?? null,
    initMs: init.length === 0 ? null : init.reduce((sum, ms) => sum + ms, 0),
    evalMs: timings.evaluate ?? null,
  };
}

/**
 * Model and tool time of each row (same order as `rows`; `steps[i]` is row i's place in its trace).
 * `calls` are all the session's calls of the current attempt, any status: a failed call in flight is
 * still time the session waited on the model.
 */
export function rowCallTimings(rows: readonly TrajectoryRow[], steps: readonly TraceStep[], calls: readonly TimedCall[]): Pick<RowTimings, 'modelMs' | 'toolMs'>[] {
  const byId = new Map(calls.map((call) => [call.id, call]));
  const busy = mergeIntervals(calls.map((call) => [call.startedAt, call.startedAt + call.latencyMs]));
  const span = (row: TrajectoryRow) => {
    const own = row.callIds.map((id) => byId.get(id)).filter((call): call is TimedCall => call !== undefined);
    return { start: Math.min(...own.map((call) => call.startedAt)), end: Math.max(...own.map((call) => call.startedAt + call.latencyMs)), latency: own.reduce((sum, call) => sum + call.latencyMs, 0) };
  };
  const spans = rows.map(span);
  // The end of each trace's steps, by trace and step index, to open the next step's window.
  const stepEnds = new Map<string, number>();
  rows.forEach((_, i) => stepEnds.set(`${steps[i]!.traceId}#${steps[i]!.stepIndex}`, spans[i]!.end));
  return rows.map((_, i) => {
    const { traceId, stepIndex } = steps[i]!;
    const { start, end, latency } = spans[i]!;
    const from = stepIndex === 0 ? start : (stepEnds.get(`${traceId}#${stepIndex - 1}`) ?? start);
    const idle = end > from ? end - from - coveredWithin(busy, from, end) : 0;
    return { modelMs: Math.round(latency), toolMs: Math.max(0, Math.round(idle)) };
  });
}

/** Sorted, disjoint union of the intervals. */
function mergeIntervals(intervals: [number, number][]): [number, number][] {
  const merged: [number, number][] = [];
  for (const [start, end] of [...intervals].sort((a, b) => a[0] - b[0])) {
    const last = merged.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** Length of `[from, to]` covered by the disjoint intervals. */
function coveredWithin(intervals: readonly [number, number][], from: number, to: number): number {
  let covered = 0;
  for (const [start, end] of intervals) covered += Math.max(0, Math.min(end, to) - Math.max(start, from));
  return covered;
}
