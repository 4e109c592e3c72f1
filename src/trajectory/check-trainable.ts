// Decides whether one captured call can be trained on, and says why not when it cannot.
import type { CallStatus } from '../capture/call-record.js';
import { sampledTokenVersions, sortCallsForBuild, type TrajectoryCall } from './trajectory-call.js';
import type { SplitRecord } from './trajectory-row.js';

/** Why a call is never trained on. */
export type NotTrainableDetail =
  /** The call's status is not `ok`. */
  | 'status'
  /** No (or empty) `prompt_token_ids`: the context the model saw is unknown. */
  | 'missing-prompt-ids'
  | 'missing-token-ids'
  | 'missing-logprobs'
  /** `token_ids` and logprobs differ in length. */
  | 'logprob-count-mismatch'
  /** Zero sampled tokens: nothing to train. */
  | 'empty-response'
  /** A logprob is NaN or infinite. */
  | 'non-finite-logprob'
  /**
   * A logprob is vLLM's clamp value (<= -9999): the token was impossible under the returned
   * distribution (e.g. raw logprobs with top-k sampling), so the value is not a real log-probability.
   */
  | 'clamped-logprob'
  /** Per-token policy versions were recorded, but not one per sampled token. */
  | 'version-count-mismatch'
  /** A policy version is not an integer >= 0 (rows use -1 for tokens the model did not sample). */
  | 'invalid-version'
  /**
   * A weight update reached the call in flight where the token it took effect at could not be seen (a
   * non-streamed answer across a keep pause, or weights changed on an engine polar had not paused).
   */
  | 'version-unobserved';

/** vLLM clamps logprobs with max(x, -9999.0); anything at or below is not a real value. */
export const CLAMPED_LOGPROB = -9999;

/** A call that passed the check: its token arrays are present and aligned. */
export interface TrainableCall {
  call: TrajectoryCall;
  promptTokenIds: readonly number[];
  tokenIds: readonly number[];
  logprobs: readonly number[];
  /** One policy version per sampled token; null when the call recorded none. */
  versions: readonly number[] | null;
}

export type TrainableCheck =
  | { trainable: true; value: TrainableCall }
  | { trainable: false; status: CallStatus; detail: NotTrainableDetail };

/** Only `ok` calls with prompt ids, sampled ids and equally many finite, unclamped logprobs are trainable. */
export function checkTrainable(call: TrajectoryCall): TrainableCheck {
  const reject = (detail: NotTrainableDetail): TrainableCheck => ({
    trainable: false,
    status: call.status,
    detail,
  });
  if (call.status !== 'ok') return reject('status');
  const { promptTokenIds, tokenIds, logprobs } = call;
  if (promptTokenIds === null || promptTokenIds.length === 0) return reject('missing-prompt-ids');
  if (tokenIds === null) return reject('missing-token-ids');
  if (logprobs === null) return reject('missing-logprobs');
  if (tokenIds.length !== logprobs.length) return reject('logprob-count-mismatch');
  if (tokenIds.length === 0) return reject('empty-response');
  if (!logprobs.every(Number.isFinite)) return reject('non-finite-logprob');
  if (logprobs.some((value) => value <= CLAMPED_LOGPROB)) return reject('clamped-logprob');
  if (call.versionUnobserved != null) return reject('version-unobserved');
  const versions = sampledTokenVersions(call);
  if (versions !== null && versions.length !== tokenIds.length) return reject('version-count-mismatch');
  if (versions !== null && !versions.every((version) => Number.isInteger(version) && version >= 0)) return reject('invalid-version');
  return { trainable: true, value: { call, promptTokenIds, tokenIds, logprobs, versions } };
}

/**
 * The trainable calls in build order (`seq`, then `id`). Each call that is not trainable is appended to
 * `splits` (reason `not-trainable`) when the iteration reaches it, so splits the caller records in the
 * same loop stay in build order.
 */
export function* trainableCallsInBuildOrder(calls: readonly TrajectoryCall[], splits: SplitRecord[]): Generator<TrainableCall> {
  for (const call of sortCallsForBuild(calls)) {
    const check = checkTrainable(call);
    if (check.trainable) yield check.value;
    else splits.push({ callId: call.id, seq: call.seq, reason: { kind: 'not-trainable', status: check.status, detail: check.detail } });
  }
}
