// The peak a calibration reports from its readings: the least-squares rate over the span with requests
// waiting after the warm-up, robust to a counter that moves in lumps; null when the queue never filled.
import { describe, expect, it } from 'vitest';
import { saturatedSpan, type CalibrationReading } from '../../../src/upstream/metrics/calibration-span.js';

/** 1000 tokens/s, counted in lumps of 4096 when a long prefill ends. */
function lumpy(waitingFrom: number, waitingTo: number): CalibrationReading[] {
  return Array.from({ length: 21 }, (_, second) => ({
    at: second * 1000,
    processed: Math.floor((second * 1000) / 4096) * 4096,
    waiting: second >= waitingFrom && second <= waitingTo ? 3 : 0,
    running: 4,
  }));
}

describe('saturatedSpan', () => {
  it('is the rate over the span in which requests waited, after the warm-up, not swung by lumps at its ends', () => {
    const span = saturatedSpan(lumpy(2, 20), 5_000);
    expect(span?.seconds).toBe(15);
    expect(span?.readings).toBe(16);
    // The span's ends alone would give (16384 - 4096) / 15 s = 819 tokens/s; the fit through every reading is within 4%.
    expect(Math.abs((span?.tokensPerSecond ?? 0) / 1000 - 1)).toBeLessThan(0.04);
    expect(span?.bestWindowTokensPerSecond).toBeGreaterThanOrEqual(span?.tokensPerSecond ?? Number.POSITIVE_INFINITY);
  });

  it('is null when nothing waited after the warm-up (the engine was never saturated)', () => {
    expect(saturatedSpan(lumpy(0, 4), 5_000)).toBeNull();
    expect(saturatedSpan(lumpy(99, 99), 0)).toBeNull();
    expect(saturatedSpan([], 0)).toBeNull();
  });
});
