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

  it('rejects a shared length longer than the base', () => {
    expect(() => decodeTokenDelta([1], { sharedLen: 2, tail: [] })).toThrow(DataError);
  });
});
