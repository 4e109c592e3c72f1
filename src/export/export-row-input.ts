// What every row shaper receives: one trajectory row plus its session's reward, advantage and metadata.
import type { LineageKind } from '../trajectory/lineage.js';
import type { TrajectoryRow } from '../trajectory/trajectory-row.js';

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
}

export interface ExportRowInput {
  row: TrajectoryRow;
  reward: number;
  advantage: number;
  /** The lineage kind's weight shared by the lineage's rows (lineage-weights.ts). */
  lossWeight: number;
  /** The row's lineage within its session (main, sub-agent, side), or null when none was detected. */
  lineage?: { id: number; kind: LineageKind } | null;
  /** The distinct policy versions the row's calls were sampled with, ascending (empty when none was recorded). */
  policyVersions?: readonly number[];
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

/** The row's logprobs with 0.0 where the mask is 0 (the padding value verl and OpenRLHF use). */
export function logprobsWithZeros(row: TrajectoryRow): number[] {
  return row.logprobs.map((logprob) => logprob ?? 0);
}
