// Resolution of the run's sampling policy from flags, a JSON file and defaults.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_ROLLOUT_SAMPLING,
  describeSamplingPolicy,
  resolveSamplingPolicy,
  samplesUnmodifiedDistribution,
} from '../../src/config/sampling-policy.js';
import { ConfigError, UsageError } from '../../src/errors.js';

const dir = mkdtempSync(path.join(tmpdir(), 'polar-sampling-'));
function file(name: string, text: string): string {
  const full = path.join(dir, name);
  writeFileSync(full, text);
  return full;
}

describe('resolveSamplingPolicy', () => {
  it('defaults to on-policy GRPO sampling: T 1, top_p 1, top_k off, min_p 0', () => {
    expect(resolveSamplingPolicy({}, DEFAULT_ROLLOUT_SAMPLING)).toEqual({ mode: 'run', temperature: 1, topP: 1, topK: -1, minP: 0 });
    expect(samplesUnmodifiedDistribution(DEFAULT_ROLLOUT_SAMPLING)).toBe(true);
  });

  it('flags override the defaults; a run policy always fills all four distribution knobs', () => {
    const policy = resolveSamplingPolicy({ temperature: 0.7, topK: 20, seed: 3, maxTokens: 4096 }, { mode: 'run' });
    expect(policy).toEqual({ mode: 'run', temperature: 0.7, topP: 1, topK: 20, minP: 0, seed: 3, maxTokens: 4096 });
    expect(samplesUnmodifiedDistribution(policy)).toBe(false);
  });

  it('--sampling harness passes the client values through; numeric flags are still forced', () => {
    expect(resolveSamplingPolicy({ sampling: 'harness' }, DEFAULT_ROLLOUT_SAMPLING)).toEqual({ mode: 'harness' });
    expect(resolveSamplingPolicy({ sampling: 'harness', maxTokens: 512 }, DEFAULT_ROLLOUT_SAMPLING)).toEqual({ mode: 'harness', maxTokens: 512 });
    expect(samplesUnmodifiedDistribution({ mode: 'harness' })).toBe(false);
  });

  it('reads a JSON file (snake_case or camelCase) over the defaults, flags over the file', () => {
    const policyFile = file('p.json', JSON.stringify({ temperature: 0.6, top_p: 0.95, topK: 20, min_p: 0.05 }));
    expect(resolveSamplingPolicy({ sampling: policyFile }, DEFAULT_ROLLOUT_SAMPLING)).toEqual({ mode: 'run', temperature: 0.6, topP: 0.95, topK: 20, minP: 0.05 });
    expect(resolveSamplingPolicy({ sampling: policyFile, temperature: 1 }, DEFAULT_ROLLOUT_SAMPLING).temperature).toBe(1);
  });

  it('reads thinking (or enable_thinking) from a file as a boolean', () => {
    expect(resolveSamplingPolicy({ sampling: file('t.json', '{"thinking": false}') }, DEFAULT_ROLLOUT_SAMPLING)).toMatchObject({ mode: 'run', thinking: false });
    expect(resolveSamplingPolicy({ sampling: file('e.json', '{"enable_thinking": true}') }, DEFAULT_ROLLOUT_SAMPLING).thinking).toBe(true);
    expect(() => resolveSamplingPolicy({ sampling: file('s.json', '{"thinking": "off"}') }, DEFAULT_ROLLOUT_SAMPLING)).toThrow(/"thinking" must be true or false/);
    expect(describeSamplingPolicy({ ...DEFAULT_ROLLOUT_SAMPLING, thinking: false })).toBe('run: temperature 1, top_p 1, top_k off, min_p 0, thinking off');
  });

  it.each([
    [{ temperature: -1 }, '--temperature must be in [0, 100] (got -1)'],
    [{ temperature: 1e300 }, '--temperature must be in [0, 100] (got 1e+300)'],
    [{ topP: 0 }, '--top-p must be in (0, 1] (got 0)'],
    [{ topK: 1.5 }, '--top-k must be -1 (off), 0 (off) or a positive integer (at most 2^53 - 1) (got 1.5)'],
    [{ topK: 2 ** 53 }, '--top-k must be -1 (off), 0 (off) or a positive integer (at most 2^53 - 1) (got 9007199254740992)'],
    [{ minP: 2 }, '--min-p must be in [0, 1] (got 2)'],
    [{ maxTokens: 0 }, '--max-tokens must be a positive integer (at most 2^53 - 1) (got 0)'],
    [{ seed: Number.NaN }, '--seed must be a finite number (got NaN)'],
    [{ seed: 1e20 }, '--seed must be an integer between -(2^53 - 1) and 2^53 - 1 (got 100000000000000000000)'],
  ])('rejects bad flag %o with a UsageError', (flags, message) => {
    expect(() => resolveSamplingPolicy(flags, DEFAULT_ROLLOUT_SAMPLING)).toThrow(UsageError);
    expect(() => resolveSamplingPolicy(flags, DEFAULT_ROLLOUT_SAMPLING)).toThrow(message);
  });

  it.each([
    ['missing.json', null, /cannot read a JSON sampling policy/],
    ['bad.json', '{nope', /cannot read a JSON sampling policy/],
    ['array.json', '[1]', /expected a JSON object/],
    ['unknown.json', '{"temp": 1}', /unknown field "temp"/],
    ['string.json', '{"temperature": "1"}', /"temperature" must be a number/],
    ['range.json', '{"top_p": 3}', /"top_p" in .* must be in \(0, 1\]/],
  ])('rejects the sampling file %s with a ConfigError', (name, text, message) => {
    const target = text === null ? path.join(dir, name) : file(name, text);
    expect(() => resolveSamplingPolicy({ sampling: target }, DEFAULT_ROLLOUT_SAMPLING)).toThrow(ConfigError);
    expect(() => resolveSamplingPolicy({ sampling: target }, DEFAULT_ROLLOUT_SAMPLING)).toThrow(message);
  });

  it('describes a policy in one line', () => {
    expect(describeSamplingPolicy(DEFAULT_ROLLOUT_SAMPLING)).toBe('run: temperature 1, top_p 1, top_k off, min_p 0');
    expect(describeSamplingPolicy({ mode: 'harness' })).toBe("harness (the client's own values)");
  });
});
