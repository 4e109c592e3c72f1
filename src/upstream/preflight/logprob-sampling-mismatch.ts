// Whether a server's logprobs are the distribution a run samples from: processed logprobs always are; raw ones
// (or ones of unknown kind) only at temperature 1 with top-p, top-k and min-p off.
import { samplesUnmodifiedDistribution, type SamplingPolicy } from '../../config/sampling-policy.js';
import { ConfigError } from '../../errors.js';
import type { UpstreamProfile } from './upstream-profile.js';

export const LOGPROB_MISMATCH_HINT =
  'Serve with `vllm serve … --logprobs-mode processed_logprobs`, or sample with --temperature 1 --top-p 1 --top-k -1 --min-p 0, or pass --allow-logprob-mismatch (recorded with the run).';

/** Null when exported logprobs would be the sampling distribution's (or the harness samples); else what is wrong. */
export function logprobSamplingMismatch(logprobMode: UpstreamProfile['logprobMode'], sampling: SamplingPolicy): string | null {
  if (logprobMode === 'processed' || sampling.mode === 'harness' || samplesUnmodifiedDistribution(sampling)) return null;
  const kind = logprobMode === 'unknown' ? 'logprobs of unknown kind' : 'raw logprobs (before temperature/top-k/top-p)';
  return `the server returns ${kind} but the run samples with ${describeNonUnit(sampling)}: exported logprobs would not be the sampling distribution's`;
}

/** Throws ConfigError (exit 3) when exported logprobs would not be this sampling's distribution, unless allowed. */
export function refuseLogprobMismatch(logprobMode: UpstreamProfile['logprobMode'], sampling: SamplingPolicy, allow: boolean): void {
  const mismatch = logprobSamplingMismatch(logprobMode, sampling);
  if (mismatch !== null && !allow) throw new ConfigError(mismatch, LOGPROB_MISMATCH_HINT);
}

function describeNonUnit(sampling: SamplingPolicy): string {
  const parts: string[] = [];
  if (sampling.temperature !== 1) parts.push(`temperature ${sampling.temperature}`);
  if ((sampling.topP ?? 1) !== 1) parts.push(`top_p ${sampling.topP}`);
  if ((sampling.topK ?? -1) > 0) parts.push(`top_k ${sampling.topK}`);
  if ((sampling.minP ?? 0) !== 0) parts.push(`min_p ${sampling.minP}`);
  return parts.join(', ') || 'a modified distribution';
}
