// Reads exported JSONL back into one neutral row shape per format, checking each format's own alignment rules.
import type { RowExportFormat } from '../../src/export/export-format.js';
import type { OpenRlhfExportRecord } from '../../src/export/shape-openrlhf-row.js';
import type { PolarExportRecord } from '../../src/export/shape-polar-row.js';
import type { VerlExportRecord } from '../../src/export/shape-verl-row.js';

export interface ExportedRow {
  sessionId: number;
  rowIndex: number;
  callIds: number[];
  builder: string;
  groupId: string;
  reward: number | null;
  advantage: number | null;
  lossWeight: number;
  simulated: boolean;
  /** Mask-1 token ids and their logprobs, in order. */
  trainedIds: number[];
  trainedLogprobs: number[];
  /** Mask-0 response tokens (interstitials). */
  maskedCount: number;
  traceId: string;
  stepIndex: number;
  isLastStep: boolean;
  stopReason: string | null;
}

export function parseJsonl(text: string): unknown[] {
  if (text !== '' && !text.endsWith('\n')) throw new Error('JSONL must end with a newline');
  return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as unknown);
}

/** Throws when a record breaks its format's alignment (mask vs ids vs logprobs). */
export function readExportedRow(format: RowExportFormat, value: unknown): ExportedRow {
  switch (format) {
    case 'polar':
      return fromPolar(value as PolarExportRecord);
    case 'verl':
      return fromVerl(value as VerlExportRecord);
    case 'openrlhf':
      return fromOpenRlhf(value as OpenRlhfExportRecord);
  }
}

function split(ids: readonly number[], mask: readonly number[], logprobs: readonly (number | null)[], masked: (logprob: number | null) => boolean) {
  if (ids.length !== mask.length || ids.length !== logprobs.length) throw new Error(`misaligned: ${ids.length} ids, ${mask.length} mask, ${logprobs.length} logprobs`);
  const trainedIds: number[] = [];
  const trainedLogprobs: number[] = [];
  let maskedCount = 0;
  mask.forEach((bit, i) => {
    if (bit === 1) {
      trainedIds.push(ids[i]!);
      trainedLogprobs.push(logprobs[i]!);
    } else {
      if (bit !== 0 || !masked(logprobs[i]!)) throw new Error(`bad masked position ${i}: mask ${bit}, logprob ${logprobs[i]}`);
      maskedCount++;
    }
  });
  return { trainedIds, trainedLogprobs, maskedCount };
}

function fromPolar(record: PolarExportRecord): ExportedRow {
  return {
    sessionId: record.session_id,
    rowIndex: record.row_index,
    callIds: record.call_ids,
    builder: record.builder,
    groupId: record.group_id,
    reward: record.reward,
    advantage: record.advantage,
    lossWeight: record.loss_weight,
    simulated: record.simulated,
    traceId: record.trace_id,
    stepIndex: record.step_index,
    isLastStep: record.is_last_step,
    stopReason: record.stop_reason,
    ...split(record.response_ids, record.loss_mask, record.logprobs, (logprob) => logprob === null),
    ...checkVersions(record),
  };
}

function fromVerl(record: VerlExportRecord): ExportedRow {
  return {
    sessionId: record.extra_info.session_id,
    rowIndex: record.extra_info.row_index,
    callIds: record.extra_info.call_ids,
    builder: record.extra_info.builder,
    groupId: record.uid,
    reward: record.reward_score,
    advantage: record.advantage,
    lossWeight: record.loss_weight,
    simulated: record.extra_info.simulated,
    traceId: record.extra_info.trace_id,
    stepIndex: record.extra_info.step_index,
    isLastStep: record.extra_info.is_last_step,
    stopReason: record.extra_info.stop_reason,
    ...split(record.responses, record.response_mask, record.rollout_log_probs, (logprob) => logprob === 0),
  };
}

function fromOpenRlhf(record: OpenRlhfExportRecord): ExportedRow {
  const mask = record.observation_tokens.map(() => 0);
  for (const [start, end] of record.action_ranges) for (let i = start; i < end; i++) mask[i] = 1;
  return {
    sessionId: record.polar.session_id,
    rowIndex: record.polar.row_index,
    callIds: record.polar.call_ids,
    builder: record.polar.builder,
    groupId: record.polar.group_id,
    reward: record.reward,
    advantage: record.polar.advantage,
    lossWeight: record.polar.loss_weight,
    simulated: record.polar.simulated,
    traceId: record.polar.trace_id,
    stepIndex: record.polar.step_index,
    isLastStep: record.polar.is_last_step,
    stopReason: record.polar.stop_reason,
    ...split(record.observation_tokens, mask, record.rollout_log_probs, (logprob) => logprob === 0),
  };
}

/** polar rows: versions (when present) align with response_ids and loss_mask, -1 exactly where the mask is 0; call_sampling with call_ids. */
function checkVersions(record: PolarExportRecord): object {
  const { versions, loss_mask: mask } = record;
  if (versions !== null) {
    if (versions.length !== record.response_ids.length || versions.length !== mask.length) throw new Error(`misaligned: ${versions.length} versions, ${mask.length} mask`);
    versions.forEach((version, i) => {
      if ((version === -1) !== (mask[i] === 0)) throw new Error(`version ${version} under mask ${mask[i]} at ${i}`);
    });
  }
  if (record.call_sampling.length !== record.call_ids.length) throw new Error('call_sampling does not align with call_ids');
  if (typeof record.is_last_step !== 'boolean') throw new Error('is_last_step is not a boolean');
  return {};
}
