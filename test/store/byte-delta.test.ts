// Prefix/suffix byte diffs round-trip exactly, including across the 4 KB comparison blocks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { decodeByteDelta, encodeByteDelta } from '../../src/store/byte-delta.js';

const text = (s: string) => Buffer.from(s);

describe('byte delta', () => {
  it.each([
    { base: '', current: '', prefix: 0, suffix: 0, middle: '' },
    { base: 'abc', current: '', prefix: 0, suffix: 0, middle: '' },
    { base: '', current: 'abc', prefix: 0, suffix: 0, middle: 'abc' },
    { base: '{"m":[1],"t":[9]}', current: '{"m":[1,2],"t":[9]}', prefix: 7, suffix: 10, middle: ',2' },
    { base: 'aaaa', current: 'aaaaaa', prefix: 4, suffix: 0, middle: 'aa' },
    { base: 'abcabc', current: 'abc', prefix: 3, suffix: 0, middle: '' },
    { base: 'same', current: 'same', prefix: 4, suffix: 0, middle: '' },
  ])('$base -> $current keeps $prefix + $suffix bytes', ({ base, current, prefix, suffix, middle }) => {
    const delta = encodeByteDelta(text(base), text(current));
    expect(delta).toEqual({ prefixLen: prefix, suffixLen: suffix, middle: text(middle) });
    expect(decodeByteDelta(text(base), delta).toString()).toBe(current);
  });

  it('round-trips any pair of byte strings exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (base, current) => {
        const back = decodeByteDelta(base, encodeByteDelta(base, current));
        expect(Buffer.compare(back, Buffer.from(current))).toBe(0);
      }),
    );
  });

  it('finds prefixes and suffixes across the 4 KB comparison blocks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000 }), fc.uint8Array({ maxLength: 50 }), (at, insert) => {
        const base = Buffer.alloc(20_000, 7);
        for (let i = 0; i < base.length; i += 13) base[i] = i % 251;
        const current = Buffer.concat([base.subarray(0, at), insert, base.subarray(at)]);
        const delta = encodeByteDelta(base, current);
        expect(delta.prefixLen + delta.suffixLen).toBe(base.length);
        expect(delta.middle.length).toBe(insert.length);
        expect(Buffer.compare(decodeByteDelta(base, delta), current)).toBe(0);
      }),
      { numRuns: 50 },
    );
  });

  it('rejects lengths that do not fit the base', () => {
    expect(() => decodeByteDelta(text('ab'), { prefixLen: 2, suffixLen: 1, middle: text('') })).toThrow(DataError);
  });
});
