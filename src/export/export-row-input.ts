// What every row shaper receives: one trajectory row plus its session's reward, advantage and metadata.
import type { SessionReason, SessionStatus } from '../store/run-repository.js';
import type { LineageKind } from '../trajectory/lineage.js';
import type { TraceStep } from '../trajectory/trace-steps.js';
import type { TrajectoryRow } from '../trajectory/trajectory-row.js';
import type { RowCapture } from './row-capture.js';
import type { RowSampling } from './row-sampling.js';
import type { RowTimings } from './row-timings.js';

/** Session facts copied into exported records. */
export interface SessionExportMeta {
  /** Run the session belongs to. */
  runId: string | null;
  /** Task (for SWE-bench: `instance_id`). */
  taskId: string;
  /** Index of the sample within its group. */
  sampleIndex: number | null;
  harness: string | null;
  /** Model name served upstream. */
  model: string | null;
  /** True when the upstream was polar's simulator: such data must never be trained on by mistake. */
  simulated: boolean;
  /** The session's terminal status. */
  status: SessionStatus;
  /** The typed reason of the status; null for sessions recorded without one. */
  statusReason: SessionReason | null;
}

export interface ExportRowInput {
  row: TrajectoryRow;
  /** The session's reward; null for a session never graded, exported with the `none` estimator. */
  reward: number | null;
  /** The session's group advantage; null exactly when the reward is. */
  advantage: number | null;
  /** The lineage kind's weight shared by the lineage's rows (lineage-weights.ts). */
  lossWeight: number;
  /** The row's lineage within its session (main, sub-agent, side), or null when none was detected. */
  lineage?: { id: number; kind: LineageKind } | null;
  /** The row's trace (its lineage) and its step within it. */
  trace: TraceStep;
  /** The distinct policy versions the row's tokens were sampled with, ascending (empty when none was recorded). */
  policyVersions?: readonly number[];
  /** Finish reason of the row's last call as recorded (`stop`, `length`, `tool_calls`, `abort`, ...); null if none. */
  stopReason: string | null;
  /** The sampling values sent upstream for the row's calls. */
  sampling: RowSampling;
  /** How the row's calls were captured: token_in, chat, or mixed (some fell back to chat; row-capture.ts). */
  capture: RowCapture;
  timings: RowTimings;
  /** GRPO group (samples of one task). */
  groupId: string;
  session: SessionExportMeta;
  /** Chat messages of the row's conversation, for reading only (never used to build tokens). */
  messages?: readonly unknown[] | null;
  /** Tool definitions, for reading only. */
  tools?: readonly unknown[] | null;
}

/** The distinct policy versions of the given calls, ascending; calls without one are skipped. */
export function policyVersionsOf(calls: Iterable<{ policyVersion?: number | null } | undefined>): number[] {
  const versions = new Set<number>();
  for (const call of calls) if (call?.policyVersion != null) versions.add(call.policyVersion);
  return [...versions].sort((a, b) => a - b);
}

/**
 * The distinct versions of the row's sampled tokens, ascending; from the calls' own versions when the row
 * has no per-token versions (a call recorded none).
 */
export function rowPolicyVersions(row: TrajectoryRow, calls: Iterable<{ policyVersion?: number | null } | undefined>): number[] {
  if (row.versions === null) return policyVersionsOf(calls);
  return [...new Set(row.versions.filter((version) => version >= 0))].sort((a, b) => a - b);
}

/** The row's logprobs with 0.0 where the mask is 0 (the padding value verl and OpenRLHF use). */
export function logprobsWithZeros(row: TrajectoryRow): number[] {
  return row.logprobs.map((logprob) => logprob ?? 0);
}
