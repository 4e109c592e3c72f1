// polar's own export record: the full row, its scores and enough metadata to trace it back.
import type { CallSamplingValues } from '../capture/call-record.js';
import { EXPORT_SCHEMA_VERSION } from './export-schema-version.js';
import type { ExportRowInput } from './export-row-input.js';
import type { RowCapture } from './row-capture.js';
import type { RowTimings } from './row-timings.js';

/** Milliseconds (README, polar format). */
export interface PolarRowTimings {
  agent_ms: number | null;
  model_ms: number;
  tool_ms: number;
  init_ms: number | null;
  eval_ms: number | null;
}

/** Every field is documented in docs/reference/export-formats.md (the polar format table). */
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
  /** The session's terminal status and its typed reason. */
  status: string;
  status_reason: string | null;
  builder: string;
  /** `<session_id>:<lineage_id>`: the row's trace; several rows when per_request or a split lineage. */
  trace_id: string;
  step_index: number;
  is_last_step: boolean;
  call_ids: number[];
  prompt_ids: number[];
  response_ids: number[];
  loss_mask: (0 | 1)[];
  /** Sampled logprob where loss_mask is 1, null where it is 0. */
  logprobs: (number | null)[];
  /** Policy version per response token, -1 where loss_mask is 0; null when a call recorded none. */
  versions: number[] | null;
  /** Null for a session never graded (exported with `--advantage none`). */
  reward: number | null;
  advantage: number | null;
  loss_weight: number;
  /** The row's lineage within its session (0 = first) and its kind: main, sub-agent or side. */
  lineage_id: number | null;
  lineage_kind: string | null;
  /** Distinct policy versions the row's tokens were sampled with, ascending. */
  policy_versions: number[];
  /** Finish reason of the row's last call. */
  stop_reason: string | null;
  /** Sampling values sent upstream, when identical for every call of the row; else null. */
  sampling: CallSamplingValues | null;
  /** One entry per `call_ids` entry. */
  call_sampling: (CallSamplingValues | null)[];
  /**
   * How the row's calls were captured: token_in (each call opened its lineage or continued it as token ids),
   * chat, or mixed (token-in asked, some call fell back to chat with a typed reason, recorded on the call).
   */
  capture: RowCapture;
  timings: PolarRowTimings;
  messages: readonly unknown[] | null;
  tools: readonly unknown[] | null;
}

export function shapePolarRow(input: ExportRowInput): PolarExportRecord {
  const { row, session, trace } = input;
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
    status: session.status,
    status_reason: session.statusReason,
    builder: row.builder,
    trace_id: trace.traceId,
    step_index: trace.stepIndex,
    is_last_step: trace.isLastStep,
    call_ids: row.callIds,
    prompt_ids: row.promptIds,
    response_ids: row.responseIds,
    loss_mask: row.lossMask,
    logprobs: row.logprobs,
    versions: row.versions,
    reward: input.reward,
    advantage: input.advantage,
    loss_weight: input.lossWeight,
    lineage_id: input.lineage?.id ?? null,
    lineage_kind: input.lineage?.kind ?? null,
    policy_versions: [...(input.policyVersions ?? [])],
    stop_reason: input.stopReason,
    sampling: input.sampling.sampling,
    call_sampling: input.sampling.callSampling,
    capture: input.capture,
    timings: toPolarTimings(input.timings),
    messages: input.messages ?? null,
    tools: input.tools ?? null,
  };
}

export function toPolarTimings(timings: RowTimings): PolarRowTimings {
  return { agent_ms: timings.agentMs, model_ms: timings.modelMs, tool_ms: timings.toolMs, init_ms: timings.initMs, eval_ms: timings.evalMs };
}
