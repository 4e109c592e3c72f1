// Token sequences stored as shared-prefix length + tail round-trip exactly.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { commonPrefixLength, decodeTokenDelta, encodeTokenDelta } from '../../src/store/token-delta.js';

const ids = fc.array(fc.integer({ min: 0, max: 0xffff_ffff }), { maxLength: 200 });

describe('token delta', () => {
  it.each([
    { base: [], current: [], shared: 0 },
    { base: [1, 2, 3], current: [], shared: 0 },
    { base: [], current: [1, 2], shared: 0 },
    { base: [1, 2, 3], current: [1, 2, 3, 4, 5], shared: 3 },
    { base: [1, 2, 3, 4], current: [1, 2, 9], shared: 2 },
    { base: [1, 2, 3], current: [1, 2], shared: 2 },
    { base: [7], current: [8, 7], shared: 0 },
  ])('shares $shared tokens between $base and $current', ({ base, current, shared }) => {
    const delta = encodeTokenDelta(base, current);
    expect(delta.sharedLen).toBe(shared);
    expect(delta.tail).toEqual(current.slice(shared));
    expect(decodeTokenDelta(base, delta)).toEqual(current);
  });

  it('round-trips any pair of sequences exactly', () => {
    fc.assert(
      fc.property(ids, ids, (base, current) => {
        expect(decodeTokenDelta(base, encodeTokenDelta(base, current))).toEqual(current);
      }),
    );
  });

  it('stores only the new tokens when the sequence extends the base', () => {
    fc.assert(
      fc.property(ids, ids, (base, extra) => {
        const delta = encodeTokenDelta(base, base.concat(extra));
        expect(delta.sharedLen).toBe(base.length);
        expect(delta.tail).toEqual(extra);
      }),
    );
  });

  it('treats 0 and -0 as different so decoding stays exact', () => {
    expect(commonPrefixLength([0], [-0])).toBe(0);
  });

  it('compares two Uint32Arrays block by block exactly as id by id, at any offset and mismatch position', () => {
    // Lengths around the 512-id block, mismatches anywhere (inside, at and across block edges) or none.
    const plainPrefix = (a: ArrayLike<number>, b: ArrayLike<number>, offset: number): number => {
      let i = 0;
      while (i < a.length && offset + i < b.length && a[i] === b[offset + i]) i++;
      return i;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2100 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.integer({ min: 0, max: 2200 }), { maxLength: 3 }),
        fc.integer({ min: -300, max: 300 }),
        (length, offset, flips, extra) => {
          const a = Uint32Array.from({ length }, (_, i) => (i * 2654435761) >>> 8);
          const b = new Uint32Array(offset + Math.max(0, length + extra));
          b.set(a.subarray(0, Math.min(length, b.length - offset)), offset);
          for (const at of flips) if (offset + at < b.length) b[offset + at] = (b[offset + at]! + 1) >>> 0;
          expect(commonPrefixLength(a, b, offset)).toBe(plainPrefix(a, b, offset));
          expect(commonPrefixLength(Array.from(a), b, offset)).toBe(plainPrefix(a, b, offset));
        },
      ),
      { seed: 7, numRuns: 2000 },
    );
  });

  it('keeps a typed tail as a view of the current sequence', () => {
    const current = Uint32Array.from([1, 2, 3, 4]);
    const delta = encodeTokenDelta([1, 2], current);
    expect(delta.sharedLen).toBe(2);
    expect(Array.from(delta.tail)).toEqual([3, 4]);
    expect((delta.tail as Uint32Array).buffer).toBe(current.buffer);
  });

  it('rejects a shared length longer than the base', () => {
    expect(() => decodeTokenDelta([1], { sharedLen: 2, tail: [] })).toThrow(DataError);
  });
});
