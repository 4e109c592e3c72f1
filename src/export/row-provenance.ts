// Where an exported row came from: the fields every trainer-specific shape carries next to its own columns.
import { EXPORT_SCHEMA_VERSION } from './export-schema-version.js';
import type { ExportRowInput } from './export-row-input.js';
import type { RowCapture } from './row-capture.js';

/** As in the polar format (README, "Export formats"). */
export interface RowProvenance {
  schema_version: typeof EXPORT_SCHEMA_VERSION;
  session_id: number;
  row_index: number;
  run_id: string | null;
  builder: string;
  call_ids: number[];
  lineage_id: number | null;
  lineage_kind: string | null;
  /** Distinct policy versions the row's tokens were sampled with (polar serve), ascending. */
  policy_versions: number[];
  simulated: boolean;
  status: string;
  status_reason: string | null;
  trace_id: string;
  step_index: number;
  is_last_step: boolean;
  stop_reason: string | null;
  /** token_in, chat, or mixed (token-in asked, some call fell back to chat with a typed reason). */
  capture: RowCapture;
}

export function rowProvenance(input: ExportRowInput): RowProvenance {
  const { row, session } = input;
  return {
    schema_version: EXPORT_SCHEMA_VERSION,
    session_id: row.sessionId,
    row_index: row.rowIndex,
    run_id: session.runId,
    builder: row.builder,
    call_ids: row.callIds,
    lineage_id: input.lineage?.id ?? null,
    lineage_kind: input.lineage?.kind ?? null,
    policy_versions: [...(input.policyVersions ?? [])],
    simulated: session.simulated,
    status: session.status,
    status_reason: session.statusReason,
    trace_id: input.trace.traceId,
    step_index: input.trace.stepIndex,
    is_last_step: input.trace.isLastStep,
    stop_reason: input.stopReason,
    capture: input.capture,
  };
}
