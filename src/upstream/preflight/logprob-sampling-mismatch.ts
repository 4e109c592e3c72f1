// Whether a server's logprobs are the distribution a run samples from: processed logprobs always are; raw ones
// (or ones of unknown kind) only at temperature 1 with top-p, top-k and min-p off; temperature-scaled ones
// (SGLang's default) at any temperature with top-p, top-k and min-p off.
import { samplesUnmodifiedDistribution, type SamplingPolicy } from '../../config/sampling-policy.js';
import { ConfigError } from '../../errors.js';
import type { EngineName } from '../engines/engine-name.js';
import type { LogprobMode } from './upstream-profile.js';

export const LOGPROB_MISMATCH_HINT =
  'Serve with `vllm serve … --logprobs-mode processed_logprobs`, or sample with --temperature 1 --top-p 1 --top-k -1 --min-p 0, or pass --allow-logprob-mismatch (recorded with the run).';

/** SGLang has no processed mode: its default logprobs follow temperature (not top-k/top-p), SGLANG_RETURN_ORIGINAL_LOGPROB=1 makes them raw. */
export const SGLANG_LOGPROB_MISMATCH_HINT =
  'SGLang returns logprobs after temperature but before top-k/top-p/min-p (raw ones with SGLANG_RETURN_ORIGINAL_LOGPROB=1): start it without that variable and sample with --top-p 1 --top-k -1 --min-p 0 (any --temperature), or pass --allow-logprob-mismatch (recorded with the run).';

/** The fix for a mismatch, in the family's own terms. */
export function logprobMismatchHint(engine: EngineName | undefined): string {
  return engine === 'sglang' ? SGLANG_LOGPROB_MISMATCH_HINT : LOGPROB_MISMATCH_HINT;
}

/** Top-p, top-k and min-p all off: temperature-scaled logprobs are then the sampling distribution's. */
function untruncated(sampling: SamplingPolicy): boolean {
  return sampling.mode === 'run' && (sampling.topP ?? 1) === 1 && (sampling.topK ?? -1) <= 0 && (sampling.minP ?? 0) === 0;
}

/** Null when exported logprobs would be the sampling distribution's (or the harness samples); else what is wrong. */
export function logprobSamplingMismatch(logprobMode: LogprobMode, sampling: SamplingPolicy): string | null {
  if (logprobMode === 'processed' || sampling.mode === 'harness' || samplesUnmodifiedDistribution(sampling)) return null;
  if (logprobMode === 'scaled') {
    if (untruncated(sampling)) return null;
    return `the server returns logprobs after temperature but before top-k/top-p/min-p, and the run samples with ${describeTruncation(sampling)}: exported logprobs would not be the sampling distribution's`;
  }
  const kind = logprobMode === 'unknown' ? 'logprobs of unknown kind' : 'raw logprobs (before temperature/top-k/top-p)';
  return `the server returns ${kind} but the run samples with ${describeNonUnit(sampling)}: exported logprobs would not be the sampling distribution's`;
}

/** Throws ConfigError (exit 3) when exported logprobs would not be this sampling's distribution, unless allowed. */
export function refuseLogprobMismatch(logprobMode: LogprobMode, sampling: SamplingPolicy, allow: boolean, engine?: EngineName): void {
  const mismatch = logprobSamplingMismatch(logprobMode, sampling);
  if (mismatch !== null && !allow) throw new ConfigError(mismatch, logprobMismatchHint(engine));
}

function describeNonUnit(sampling: SamplingPolicy): string {
  const parts: string[] = [];
  if (sampling.temperature !== 1) parts.push(`temperature ${sampling.temperature}`);
  return [...parts, describeTruncation(sampling)].filter((part) => part !== '').join(', ') || 'a modified distribution';
}

function describeTruncation(sampling: SamplingPolicy): string {
  const parts: string[] = [];
  if ((sampling.topP ?? 1) !== 1) parts.push(`top_p ${sampling.topP}`);
  if ((sampling.topK ?? -1) > 0) parts.push(`top_k ${sampling.topK}`);
  if ((sampling.minP ?? 0) !== 0) parts.push(`min_p ${sampling.minP}`);
  return parts.join(', ');
}
