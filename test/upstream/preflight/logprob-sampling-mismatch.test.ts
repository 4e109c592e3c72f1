// A run's sampling against the server's logprob mode: the check a shared `polar serve` upstream applies per batch.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING, type SamplingPolicy } from '../../../src/config/sampling-policy.js';
import { ConfigError, EXIT_CODES } from '../../../src/errors.js';
import { logprobSamplingMismatch, refuseLogprobMismatch } from '../../../src/upstream/preflight/logprob-sampling-mismatch.js';

const hot: SamplingPolicy = { ...DEFAULT_ROLLOUT_SAMPLING, temperature: 0.7, topP: 0.95 };

describe('logprobSamplingMismatch', () => {
  it('accepts processed logprobs with any sampling, and raw ones only for the unmodified distribution', () => {
    expect(logprobSamplingMismatch('processed', hot)).toBeNull();
    expect(logprobSamplingMismatch('raw', DEFAULT_ROLLOUT_SAMPLING)).toBeNull();
    expect(logprobSamplingMismatch('unknown', DEFAULT_ROLLOUT_SAMPLING)).toBeNull();
    expect(logprobSamplingMismatch('raw', hot)).toBe(
      "the server returns raw logprobs (before temperature/top-k/top-p) but the run samples with temperature 0.7, top_p 0.95: exported logprobs would not be the sampling distribution's",
    );
    expect(logprobSamplingMismatch('unknown', { ...DEFAULT_ROLLOUT_SAMPLING, topK: 20 })).toMatch(/logprobs of unknown kind .* top_k 20/);
  });

  it('accepts temperature-scaled logprobs (SGLang) at any temperature, not with top-k/top-p/min-p', () => {
    expect(logprobSamplingMismatch('scaled', { ...DEFAULT_ROLLOUT_SAMPLING, temperature: 0.6 })).toBeNull();
    expect(logprobSamplingMismatch('scaled', hot)).toBe(
      "the server returns logprobs after temperature but before top-k/top-p/min-p, and the run samples with top_p 0.95: exported logprobs would not be the sampling distribution's",
    );
    expect(logprobSamplingMismatch('scaled', { ...DEFAULT_ROLLOUT_SAMPLING, minP: 0.05 })).toMatch(/min_p 0.05/);
  });

  it('leaves harness-chosen sampling to the preflight warning', () => {
    expect(logprobSamplingMismatch('raw', { ...hot, mode: 'harness' })).toBeNull();
  });
});

describe('refuseLogprobMismatch', () => {
  it('throws a ConfigError (exit 3) with the fix, unless the mismatch is allowed', () => {
    let error: unknown;
    try {
      refuseLogprobMismatch('raw', hot, false);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(EXIT_CODES.config);
    expect((error as ConfigError).hint).toContain('--logprobs-mode processed_logprobs');
    expect(() => refuseLogprobMismatch('raw', hot, true)).not.toThrow();
    expect(() => refuseLogprobMismatch('processed', hot, false)).not.toThrow();
  });
});
