// OpenRLHF shape: the dict an OpenRLHF agent executor returns for one finished rollout.
import { InternalError } from '../errors.js';
import { rowProvenance, type RowProvenance } from './row-provenance.js';
import { logprobsWithZeros, type ExportRowInput } from './export-row-input.js';
import type { TrajectoryRow } from '../trajectory/trajectory-row.js';

/**
 * Field mapping, from OpenRLHF's agent executors (`final_response` dict) as consumed by
 * `SamplesGenerator._process_response_into_experience` (`openrlhf/trainer/ppo_utils/samples_generator.py`):
 * - `observation_tokens` ← prompt_ids ++ response_ids (the whole sequence).
 * - `action_ranges` ← `[start, end)` index ranges into `observation_tokens` where loss_mask is 1;
 *   OpenRLHF builds `action_mask` from them.
 * - `rollout_log_probs` ← one value per `observation_tokens` position: the sampled logprob on action
 *   tokens, 0.0 on prompt and interstitial tokens (OpenRLHF fills non-action positions with 0.0 and
 *   drops index 0 when aligning with `action_mask`).
 * - `reward` and `scores` ← reward. Required: OpenRLHF's reward comes from the agent executor, and
 *   `prompt` / `label` give a reward function nothing to grade, so a session without a reward is refused
 *   before anything is written (MissingRewardError, export-run.ts); reaching the shaper without one is a bug.
 * - `truncated` ← the row's last call finished with `length` (OpenRLHF reads `response.get("truncated")`,
 *   `openrlhf/trainer/ppo_utils/samples_generator.py` at 03912e47).
 * - `prompt` ← the task id and `label` ← '': OpenRLHF passes them to reward functions and logs only;
 *   polar's reward is already computed and polar has token ids, not the prompt text.
 * There is no official OpenRLHF loader for pre-collected rollouts; this mirrors its in-memory contract.
 * polar's own metadata (advantage, loss weight, ids) is under `polar`.
 */
export interface OpenRlhfExportRecord {
  prompt: string;
  label: string;
  observation_tokens: number[];
  action_ranges: [number, number][];
  rollout_log_probs: number[];
  reward: number;
  scores: number;
  truncated: boolean;
  extra_logs: Record<string, number>;
  /** Provenance as in the polar format, plus polar's group, advantage and loss weight. */
  polar: RowProvenance & {
    group_id: string;
    advantage: number;
    loss_weight: number;
  };
}

export function shapeOpenRlhfRow(input: ExportRowInput): OpenRlhfExportRecord {
  const { row, session, reward, advantage } = input;
  if (reward === null || advantage === null) throw new InternalError(`openrlhf row ${row.rowIndex} of session ${row.sessionId} has no reward; the export should have refused it.`);
  return {
    prompt: session.taskId,
    label: '',
    observation_tokens: [...row.promptIds, ...row.responseIds],
    action_ranges: actionRanges(row),
    rollout_log_probs: [...row.promptIds.map(() => 0), ...logprobsWithZeros(row)],
    reward,
    scores: reward,
    truncated: input.stopReason === 'length',
    extra_logs: {},
    polar: {
      ...rowProvenance(input),
      group_id: input.groupId,
      advantage,
      loss_weight: input.lossWeight,
    },
  };
}

/** Maximal runs of mask 1 as `[start, end)` offsets into prompt ++ response. */
export function actionRanges(row: Pick<TrajectoryRow, 'promptIds' | 'lossMask'>): [number, number][] {
  const ranges: [number, number][] = [];
  const offset = row.promptIds.length;
  let start = -1;
  row.lossMask.forEach((bit, i) => {
    if (bit === 1 && start < 0) start = i;
    if (bit === 0 && start >= 0) {
      ranges.push([offset + start, offset + i]);
      start = -1;
    }
  });
  if (start >= 0) ranges.push([offset + start, offset + row.lossMask.length]);
  return ranges;
}
