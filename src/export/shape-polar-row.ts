// polar's own export record: the full row, its scores and enough metadata to trace it back.
import { EXPORT_SCHEMA_VERSION } from './export-schema-version.js';
import type { ExportRowInput } from './export-row-input.js';

export interface PolarExportRecord {
  schema_version: typeof EXPORT_SCHEMA_VERSION;
  session_id: number;
  row_index: number;
  group_id: string;
  task_id: string;
  run_id: string | null;
  sample_index: number | null;
  harness: string | null;
  model: string | null;
  /** True for trajectories produced by polar's simulator. */
  simulated: boolean;
  builder: string;
  call_ids: number[];
  prompt_ids: number[];
  response_ids: number[];
  loss_mask: (0 | 1)[];
  /** Sampled logprob where loss_mask is 1, null where it is 0. */
  logprobs: (number | null)[];
  reward: number;
  advantage: number;
  loss_weight: number;
  /** The row's lineage within its session (0 = first) and its kind: main, sub-agent or side. */
  lineage_id: number | null;
  lineage_kind: string | null;
  /** Distinct policy versions the row's calls were sampled with (polar serve), ascending. */
  policy_versions: number[];
  messages: readonly unknown[] | null;
  tools: readonly unknown[] | null;
}

export function shapePolarRow(input: ExportRowInput): PolarExportRecord {
  const { row, session } = input;
  return {
    schema_version: EXPORT_SCHEMA_VERSION,
    session_id: row.sessionId,
    row_index: row.rowIndex,
    group_id: input.groupId,
    task_id: session.taskId,
    run_id: session.runId,
    sample_index: session.sampleIndex,
    harness: session.harness,
    model: session.model,
    simulated: session.simulated,
    builder: row.builder,
    call_ids: row.callIds,
    prompt_ids: row.promptIds,
    response_ids: row.responseIds,
    loss_mask: row.lossMask,
    logprobs: row.logprobs,
    reward: input.reward,
    advantage: input.advantage,
    loss_weight: input.lossWeight,
    lineage_id: input.lineage?.id ?? null,
    lineage_kind: input.lineage?.kind ?? null,
      policy_versions: [...(input.policyVersions ?? [])],
    messages: input.messages ?? null,
    tools: input.tools ?? null,
  };
}
