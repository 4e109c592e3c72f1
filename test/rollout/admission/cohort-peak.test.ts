// The projected peak of admitted sessions' contexts, each growing at the same rate to the typical final context.
import { describe, expect, it } from 'vitest';
import { cohortPeak } from '../../../src/rollout/admission/cohort-peak.js';

describe('cohortPeak', () => {
  it('sessions that started together peak at n x the final context just before they end', () => {
    expect(cohortPeak([0, 0, 0, 0], 20_000)).toBe(80_000);
    expect(cohortPeak([5_000, 5_000], 20_000)).toBe(40_000);
  });

  it('staggered sessions peak just before one of them ends, the ones already ended left out', () => {
    // 5k, 10k, 15k growing to 20k: just before the oldest ends (5k more each) they hold 20k + 15k + 10k.
    expect(cohortPeak([5_000, 10_000, 15_000], 20_000)).toBe(45_000);
    // One already past the final context counts as ending now: only what it holds.
    expect(cohortPeak([30_000, 0], 20_000)).toBe(30_000);
  });

  it('a session that has not called yet counts at `first` (never above the final context)', () => {
    expect(cohortPeak([0, 0], 20_000, 4_000)).toBe(40_000);
    expect(cohortPeak([0], 20_000, 50_000)).toBe(20_000);
    expect(cohortPeak([], 20_000)).toBe(0);
  });
});
