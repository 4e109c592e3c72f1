// When a value is stored as a delta and when as a full checkpoint.
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_INTERVAL, shouldStoreDelta } from '../../src/store/delta-policy.js';

describe('shouldStoreDelta', () => {
  it.each([
    { seq: 0, shared: 100, total: 100, delta: false },
    { seq: 1, shared: 100, total: 120, delta: true },
    { seq: CHECKPOINT_INTERVAL, shared: 100, total: 120, delta: false },
    { seq: CHECKPOINT_INTERVAL + 1, shared: 100, total: 120, delta: true },
    { seq: 5, shared: 50, total: 100, delta: true },
    { seq: 5, shared: 49, total: 100, delta: false },
    { seq: 5, shared: 0, total: 0, delta: false },
  ])('seq $seq sharing $shared of $total: delta $delta', ({ seq, shared, total, delta }) => {
    expect(shouldStoreDelta(seq, shared, total)).toBe(delta);
  });
});
