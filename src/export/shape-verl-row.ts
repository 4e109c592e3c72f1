// verl shape: the unpadded per-sample tensors verl's agent loop hands its trainer.
import type { CallSamplingValues } from '../capture/call-record.js';
import { logprobsWithZeros, type ExportRowInput } from './export-row-input.js';
import { rowProvenance, type RowProvenance } from './row-provenance.js';
import { toPolarTimings, type PolarRowTimings } from './shape-polar-row.js';

/**
 * Field mapping, from verl `verl/experimental/agent_loop/agent_loop.py` (`AgentLoopOutput` and the
 * `DataProto` that `AgentLoopWorker.generate_sequences` returns):
 * - `prompts` ← prompt_ids. verl left-pads to `rollout.prompt_length`.
 * - `responses` ← response_ids (sampled tokens and tool/template tokens). verl right-pads.
 * - `response_mask` ← loss_mask: "1 for LLM generated tokens, 0 for observation/padding tokens".
 * - `rollout_log_probs` ← logprobs, 0.0 where the mask is 0 (verl pads `response_logprobs` with 0.0).
 * - `reward_score` ← reward (`AgentLoopOutput.reward_score`, `Optional[float] = None`; verl puts it at the
 *   last response token). Null for a session never graded (`--advantage none`): verl's reward loop then
 *   scores the row itself (it keeps `rm_scores` only when every output of a batch sets `reward_score`).
 * - `uid` ← group_id (`non_tensor_batch["uid"]`, the index verl's GRPO groups by).
 * `input_ids`, `attention_mask` and `position_ids` are derived by verl's padding step and not exported.
 *
 * Caution: verl's own GRPO recomputes mean/std over the *rows* sharing a `uid`, so a session exported as
 * several rows would count several times there. polar's `advantage` is computed per session and
 * `loss_weight` = 1 / (rows of the session); a custom verl estimator should read those instead.
 */
export interface VerlExportRecord {
  prompts: number[];
  responses: number[];
  response_mask: (0 | 1)[];
  rollout_log_probs: number[];
  reward_score: number | null;
  uid: string;
  /** polar's per-session advantage (grouped by session, not by row); null when the reward is. */
  advantage: number | null;
  loss_weight: number;
  /** Provenance as in the polar format, plus the task, the sampling sent and the timings. */
  extra_info: RowProvenance & {
    task_id: string;
    sampling: CallSamplingValues | null;
    timings: PolarRowTimings;
  };
}

export function shapeVerlRow(input: ExportRowInput): VerlExportRecord {
  const { row, session } = input;
  return {
    prompts: row.promptIds,
    responses: row.responseIds,
    response_mask: row.lossMask,
    rollout_log_probs: logprobsWithZeros(row),
    reward_score: input.reward,
    uid: input.groupId,
    advantage: input.advantage,
    loss_weight: input.lossWeight,
    extra_info: {
      ...rowProvenance(input),
      task_id: session.taskId,
      sampling: input.sampling.sampling,
      timings: toPolarTimings(input.timings),
    },
  };
}
