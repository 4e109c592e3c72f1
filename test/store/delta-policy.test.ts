// When a value is stored as a delta and when as a full checkpoint.
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_INTERVAL, isCheckpoint, lastCheckpoint, MAX_CHECKPOINT_INTERVAL, shouldStoreDelta } from '../../src/store/delta-policy.js';

describe('shouldStoreDelta', () => {
  it.each([
    { seq: 0, shared: 100, total: 100, delta: false },
    { seq: 1, shared: 100, total: 120, delta: true },
    { seq: 32, shared: 100, total: 120, delta: true },
    { seq: CHECKPOINT_INTERVAL, shared: 100, total: 120, delta: false },
    { seq: CHECKPOINT_INTERVAL + 1, shared: 100, total: 120, delta: true },
    { seq: 5, shared: 50, total: 100, delta: true },
    { seq: 5, shared: 49, total: 100, delta: false },
    { seq: 5, shared: 0, total: 0, delta: false },
  ])('seq $seq sharing $shared of $total: delta $delta', ({ seq, shared, total, delta }) => {
    expect(shouldStoreDelta(seq, shared, total)).toBe(delta);
  });
});

describe('checkpoint schedule', () => {
  it('doubles its spacing from 64 up to 256, then stays there', () => {
    const checkpoints = Array.from({ length: 1300 }, (_, seq) => seq).filter(isCheckpoint);
    expect(checkpoints).toEqual([0, 64, 128, 256, 512, 768, 1024, 1280]);
    expect([0, 63, 64, 127, 128, 255, 256, 511, 512, 767, 768].map(lastCheckpoint)).toEqual([0, 0, 64, 64, 128, 128, 256, 256, 512, 512, 768]);
  });

  it('bounds the links a decode walks, and pays each full copy with at least as many calls as came before it', () => {
    let longest = 0;
    for (let seq = 0; seq < 5000; seq++) {
      longest = Math.max(longest, seq - lastCheckpoint(seq));
      if (isCheckpoint(seq) && seq > 0) expect(seq - lastCheckpoint(seq - 1)).toBeGreaterThanOrEqual(Math.min(lastCheckpoint(seq - 1), MAX_CHECKPOINT_INTERVAL));
    }
    expect(longest).toBe(MAX_CHECKPOINT_INTERVAL - 1);
  });
});
