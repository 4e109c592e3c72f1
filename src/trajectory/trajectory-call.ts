// The captured call as the trajectory builders see it, plus the token facts (EOS ids) they need.
import type { CallStatus } from '../capture/call-record.js';
import type { CanonicalResponse } from '../providers/canonical.js';
import { QWEN_TOKEN_IDS } from '../capture/qwen-token-ids.js';

/** One captured model call of a session, reduced to what trajectory building needs. */
export interface TrajectoryCall {
  /** Store id of the call; rows refer to calls by this id. */
  id: number;
  /** Order of the call within its session (capture order); builders walk calls by `seq`, then `id`. */
  seq: number;
  status: CallStatus;
  /** `prompt_token_ids` the upstream returned: exactly what the model saw. */
  promptTokenIds: number[] | null;
  /** The sampled token ids, unparsed. */
  tokenIds: number[] | null;
  /** One logprob per sampled token. */
  logprobs: number[] | null;
  /** Upstream `finish_reason` (`stop`, `length`, `tool_calls`, ...). */
  finishReason: string | null;
  /** The parsed assistant turn, for reading and SFT export only (never used to build token rows). */
  response: CanonicalResponse | null;
  /** The client's request messages, for reading only. */
  requestMessages?: unknown;
  /**
   * The policy version in force when the call was sent upstream (`polar serve` pause/resume); null or
   * absent when none was recorded (calls stored before versions were).
   */
  policyVersion?: number | null;
  /**
   * The policy version of each sampled token, aligned with `tokenIds`, for a call whose weights changed
   * while it was in flight (a pause in "keep" mode freezes a request, which then continues under the new
   * weights). Absent: every sampled token has `policyVersion`. A length other than `tokenIds`' makes the
   * call untrainable (`version-count-mismatch`).
   */
  tokenVersions?: readonly number[] | null;
  /**
   * Why the per-token versions of this call cannot be known (a weight update reached it in flight where no
   * token count was observable): the call is never trained on (`version-unobserved`).
   */
  versionUnobserved?: string | null;
}

/**
 * The version of each of `count` sampled tokens: `policyVersion` before the first boundary, then each
 * `[index, version]` boundary's version from its index on. Null without a policy version.
 */
export function versionsFromBoundaries(policyVersion: number | null | undefined, boundaries: readonly (readonly [number, number])[] | null | undefined, count: number): number[] | null {
  if (policyVersion == null) return null;
  const versions = new Array<number>(count).fill(policyVersion);
  for (const [index, version] of boundaries ?? []) versions.fill(version, Math.min(index, count));
  return versions;
}

/**
 * The policy version of each sampled token of a call: `tokenVersions` when recorded, else `policyVersion`
 * for every token, else null (no version recorded).
 */
export function sampledTokenVersions(call: Pick<TrajectoryCall, 'tokenIds' | 'policyVersion' | 'tokenVersions'>): readonly number[] | null {
  if (call.tokenVersions != null) return call.tokenVersions;
  if (call.policyVersion == null || call.tokenIds === null) return null;
  const version = call.policyVersion;
  return call.tokenIds.map(() => version);
}

/** Token facts of the served model's tokenizer that the builders depend on. */
export interface BuilderOptions {
  /**
   * Ids that end an assistant turn. A call whose sampled tokens do not end with one of these
   * (a `length` finish, a stop string) closes its chain: the next call cannot extend it.
   */
  eosTokenIds: readonly number[];
}

/**
 * Qwen defaults, used only where no run supplies its own ids (sessions made by hand, the built-in
 * simulator): `<|im_end|>` ends an assistant turn; `<|endoftext|>` is the second id in Qwen3's
 * `generation_config.json` `eos_token_id` list, so vLLM may also stop on it. A run's ids come from the
 * upstream preflight (`UpstreamProfile.eosTokenIds`, or `--eos-token-ids`) and are passed as
 * `BuilderOptions.eosTokenIds`.
 */
export const DEFAULT_BUILDER_OPTIONS: BuilderOptions = {
  eosTokenIds: [QWEN_TOKEN_IDS.imEnd, QWEN_TOKEN_IDS.endOfText],
};

/** Fills unset options with the Qwen defaults. */
export function resolveBuilderOptions(options?: Partial<BuilderOptions>): BuilderOptions {
  return { eosTokenIds: options?.eosTokenIds ?? DEFAULT_BUILDER_OPTIONS.eosTokenIds };
}

/** Sorts calls into build order: by `seq`, then by `id`. Returns a new array. */
export function sortCallsForBuild(calls: readonly TrajectoryCall[]): TrajectoryCall[] {
  return [...calls].sort((a, b) => a.seq - b.seq || a.id - b.id);
}
