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
  reward: number;
  advantage: number;
  lossWeight: number;
  simulated: boolean;
  /** Mask-1 token ids and their logprobs, in order. */
  trainedIds: number[];
  trainedLogprobs: number[];
  /** Mask-0 response tokens (interstitials). */
  maskedCount: number;
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
    ...split(record.response_ids, record.loss_mask, record.logprobs, (logprob) => logprob === null),
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
    ...split(record.observation_tokens, mask, record.rollout_log_probs, (logprob) => logprob === 0),
  };
}
