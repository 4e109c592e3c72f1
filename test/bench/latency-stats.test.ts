// Nearest-rank percentiles on small, hand-checkable sample sets.
import { describe, expect, it } from 'vitest';
import { percentile, summarizeLatency } from './latency-stats.js';

const HUNDRED = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose

describe('percentile', () => {
  it.each([
    { samples: [5], p: 50, expected: 5 },
    { samples: [5], p: 99, expected: 5 },
    { samples: [3, 1, 2], p: 50, expected: 2 },
    { samples: [4, 1, 3, 2], p: 50, expected: 2 },
    { samples: [4, 1, 3, 2], p: 100, expected: 4 },
    { samples: [4, 1, 3, 2], p: 1, expected: 1 },
    { samples: HUNDRED, p: 50, expected: 50 },
    { samples: HUNDRED, p: 99, expected: 99 },
    { samples: HUNDRED, p: 99.5, expected: 100 },
  ])('p$p of $samples.length samples is $expected', ({ samples, p, expected }) => {
    expect(percentile(samples, p)).toBe(expected);
  });

  it('is NaN without samples and does not reorder the input', () => {
    expect(percentile([], 50)).toBeNaN();
    const input = [3, 1, 2];
    percentile(input, 50);
    expect(input).toEqual([3, 1, 2]);
  });

  it('summarizes p50 and p99', () => {
    expect(summarizeLatency(HUNDRED)).toEqual({ p50: 50, p99: 99 });
  });
});
