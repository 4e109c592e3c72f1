// The `logprob-mode` check: what the server's logprobs are (two answers that differ only in temperature,
// and on SGLang a third that differs only in top_p), and whether they are the run's sampling distribution.
import { samplesUnmodifiedDistribution } from '../../config/sampling-policy.js';
import { EXIT_CODES } from '../../errors.js';
import type { ChatCompletionWire } from '../vllm-api-types.js';
import { detectLogprobMode } from './detect-logprob-mode.js';
import { logprobMismatchHint, logprobSamplingMismatch } from './logprob-sampling-mismatch.js';
import type { ProbeAnswer } from './probe-http.js';
import type { PreflightRun } from './preflight-run.js';

/** The probe answers: at temperature 1 and 0.5 (same seed); `narrow`: temperature 1 with top_p 0.5 (SGLang only). */
export interface LogprobProbes {
  one: ProbeAnswer;
  half: ProbeAnswer;
  narrow?: ProbeAnswer;
  /** Reads a 200 answer as a chat completion (the engine's reader). */
  read(answer: ProbeAnswer): ChatCompletionWire;
}

export function checkLogprobs(run: PreflightRun, probes: LogprobProbes): void {
  const { profile, options } = run;
  const { one, half, narrow } = probes;
  if (one.status === 200 && half.status === 200) {
    profile.logprobMode = detectLogprobMode(probes.read(one), probes.read(half));
    // Logprobs that follow temperature may still ignore top-p (SGLang's default): the same context with a
    // narrower nucleus leaves them unchanged (detectLogprobMode calls that 'raw').
    if (profile.logprobMode === 'processed' && narrow?.status === 200 && detectLogprobMode(probes.read(one), probes.read(narrow)) === 'raw') {
      profile.logprobMode = 'scaled';
    }
  }
  const sampling = options.sampling;
  profile.logprobsMatchSampling =
    profile.logprobMode === 'processed' ||
    samplesUnmodifiedDistribution(sampling) ||
    (profile.logprobMode === 'scaled' && sampling.mode === 'run' && logprobSamplingMismatch('scaled', sampling) === null);
  const modeText = profile.logprobMode === 'unknown' ? 'could not be told apart (raw or processed)' : profile.logprobMode === 'scaled' ? 'scaled by temperature (before top-k/top-p/min-p)' : `${profile.logprobMode}`;
  if (profile.logprobsMatchSampling) {
    const caveat =
      profile.logprobMode === 'raw'
        ? 'raw logprobs are exact only while temperature 1, top_p 1, top_k off, min_p 0'
        : profile.logprobMode === 'scaled'
          ? 'temperature-scaled logprobs are exact only while top_p 1, top_k off, min_p 0'
          : undefined;
    run.pass('logprob-mode', `logprobs are ${modeText}; they are the sampling distribution's`, caveat);
    return;
  }
  const hint = logprobMismatchHint(profile.engine);
  if (sampling.mode === 'harness') {
    const fix = profile.engine === 'sglang' ? 'sample with top_p 1, top_k off, min_p 0' : 'serve with `--logprobs-mode processed_logprobs`';
    run.fail('logprob-mode', `logprobs are ${modeText} and the harness picks the sampling: exported logprobs may not be the sampled distribution's`, `Fine for evaluation; for training use run sampling, or ${fix}.`, EXIT_CODES.config, true);
    return;
  }
  profile.logprobMismatchAllowed = options.allowLogprobMismatch ?? false;
  // Not null here: the logprobs do not match, the distribution is modified and the run (not the harness) samples.
  run.fail('logprob-mode', logprobSamplingMismatch(profile.logprobMode, sampling)!, hint, EXIT_CODES.config, profile.logprobMismatchAllowed);
}
