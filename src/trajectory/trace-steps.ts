// Traces of a session's rows: the rows of one lineage, in order, the one holding its last call marked.
import { InternalError } from '../errors.js';
import { sortCallsForBuild, type TrajectoryCall } from './trajectory-call.js';
import type { TrajectoryRow } from './trajectory-row.js';

/** Where a row sits in its trace (a lineage: the main agent, a sub-agent, a side call). */
export interface TraceStep {
  /** `<session id>:<lineage id>`: names the lineage; unique within a store, so within a run. */
  traceId: string;
  /** The row's position within its trace, 0-based, in the build order of the rows' last calls. */
  stepIndex: number;
  /** True for the row holding the trace's last trainable call (the highest step index). */
  isLastStep: boolean;
}

/**
 * One TraceStep per row (same order as `rows`). A trace is a lineage; `lineageOfCall` maps every trainable
 * call to its lineage id (from a prefix_merging build, whatever builder made `rows`). per_request has one
 * row per call, so its steps are the lineage's calls; prefix_merging usually has one row per lineage, several
 * when the lineage was split. Steps are ordered by each row's last call (`seq`, then id), so the last step
 * is the row with the trace's last call. Throws InternalError when a row's call has no lineage (a bug).
 */
export function traceStepsOf(
  sessionId: number,
  rows: readonly TrajectoryRow[],
  lineageOfCall: (callId: number) => number | undefined,
  calls: readonly TrajectoryCall[],
): TraceStep[] {
  const order = new Map(sortCallsForBuild(calls).map((call, index) => [call.id, index]));
  const lastCallOrder = (row: TrajectoryRow): number => order.get(row.callIds.at(-1)!) ?? -1;
  const byTrace = new Map<number, TrajectoryRow[]>();
  for (const row of rows) {
    const lineage = lineageOfCall(row.callIds[0]!);
    if (lineage === undefined) throw new InternalError(`Row ${row.rowIndex} of session ${sessionId} has a call (${row.callIds[0]}) in no lineage.`);
    const traceRows = byTrace.get(lineage);
    if (traceRows === undefined) byTrace.set(lineage, [row]);
    else traceRows.push(row);
  }
  const steps = new Map<TrajectoryRow, TraceStep>();
  for (const [lineage, traceRows] of byTrace) {
    const ordered = [...traceRows].sort((a, b) => lastCallOrder(a) - lastCallOrder(b));
    ordered.forEach((row, stepIndex) => steps.set(row, { traceId: `${sessionId}:${lineage}`, stepIndex, isLastStep: stepIndex === ordered.length - 1 }));
  }
  return rows.map((row) => steps.get(row)!);
}
