// The run summary's engine line (`polar rollout`'s closing lines, plain run-end output, `polar runs show`).
import { describe, expect, it } from 'vitest';
import { formatEngineUsage } from '../../src/ui/format-engine.js';
import type { EngineUsage } from '../../src/upstream/metrics/engine-usage.js';

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

describe('formatEngineUsage', () => {
  it('says tokens processed, utilisation against which ceiling, preemptions and peak KV usage', () => {
    expect(formatEngineUsage(usage)).toBe('engine: 3,456,789 tokens processed, effective GPU utilisation 27.7% of 20,784 tokens/s (calibration), 2 preemption(s), peak KV usage 73%');
  });

  it('says why utilisation is unknown', () => {
    const unknown = { ...usage, effectiveUtilisation: null, ceilingTokensPerSecond: null, ceilingSource: null, unknown: 'no ceiling for http://gpu:8000/v1: …', unknownCode: 'no-ceiling' as const };
    expect(formatEngineUsage(unknown)).toBe('engine: 3,456,789 tokens processed, effective GPU utilisation unknown (no ceiling for http://gpu:8000/v1: …), 2 preemption(s), peak KV usage 73%');
  });
});
