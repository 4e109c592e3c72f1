// The run summary's engine line: all of it, with why utilisation is unknown, where a person asked (`polar runs show`,
// `--verbose`); in a rollout's closing lines only when it says something (not for the simulator without a GPU).
import { describe, expect, it } from 'vitest';
import { briefEngineUsage, formatEngineUsage } from '../../src/ui/format-engine.js';
import type { EngineUsage } from '../../src/upstream/metrics/engine-usage.js';
import { noCeilingHint } from '../../src/upstream/metrics/engine-ceiling.js';

const usage: EngineUsage = {
  wallMs: 600_000,
  processedTokens: 3_456_789,
  promptTokens: 9_000_000,
  cachedPromptTokens: 7_000_000,
  generationTokens: 1_456_789,
  preemptions: 2,
  peakKvUsage: 0.734,
  ceilingTokensPerSecond: 20_784.4,
  ceilingSource: 'calibration',
  effectiveUtilisation: 0.27719,
  unknown: null,
  unknownCode: null,
};
const unknownCeiling = { effectiveUtilisation: null, ceilingTokensPerSecond: null, ceilingSource: null, unknownCode: 'no-ceiling' as const };

describe('formatEngineUsage', () => {
  it('says tokens processed, utilisation against which ceiling, preemptions and peak KV usage', () => {
    expect(formatEngineUsage(usage)).toBe('engine: 3,456,789 tokens processed, effective GPU utilisation 27.7% of 20,784 tokens/s (calibration), 2 preemptions, peak KV usage 73%');
  });

  it('says why utilisation is unknown, after the figures it has', () => {
    const unknown = { ...usage, ...unknownCeiling, unknown: 'no ceiling for http://gpu:8000/v1: …' };
    expect(formatEngineUsage(unknown)).toBe('engine: 3,456,789 tokens processed, 2 preemptions, peak KV usage 73%; effective GPU utilisation unknown: no ceiling for http://gpu:8000/v1: …');
  });
});

describe('briefEngineUsage (a rollout\'s closing lines)', () => {
  it('is the same line when utilisation is known', () => {
    expect(briefEngineUsage(usage)).toBe(formatEngineUsage(usage));
  });

  it('says nothing for the simulator without a GPU profile: no utilisation, no preemption, an idle KV cache', () => {
    const simulator = { ...usage, ...unknownCeiling, preemptions: 0, peakKvUsage: 0, unknown: noCeilingHint('http://127.0.0.1:40053/v1', true) };
    expect(briefEngineUsage(simulator)).toBeUndefined();
  });

  it('keeps the figures of a real engine without a ceiling, and leaves the explanation to polar runs show', () => {
    const real = { ...usage, ...unknownCeiling, preemptions: 1, unknown: noCeilingHint('http://gpu:8000/v1') };
    expect(briefEngineUsage(real)).toBe('engine: 3,456,789 tokens processed, 1 preemption, peak KV usage 73%');
  });
});

describe('noCeilingHint for the simulator', () => {
  it('names the fix, not the port of a simulator the reader never started', () => {
    const hint = noCeilingHint('http://127.0.0.1:40053/v1', true);
    expect(hint).not.toContain('127.0.0.1');
    expect(hint).toMatch(/gpu=qwen3-8b-h100/);
    expect(hint).toMatch(/--gpu-peak-tokens-per-second/);
  });
});
