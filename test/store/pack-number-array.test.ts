// Token id and logprob packing is lossless and picks the narrowest exact format.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { chooseNumberArrayFormat, packNullableNumberArray, packNumberArray, unpackNullableNumberArray, unpackNumberArray } from '../../src/store/pack-number-array.js';

const cases: { name: string; values: number[]; format: 'uint24' | 'uint32' | 'float32' | 'float64'; bytes: number }[] = [
  { name: 'empty', values: [], format: 'uint32', bytes: 1 },
  { name: 'token ids', values: [0, 1, 151_643, 151_645], format: 'uint24', bytes: 13 },
  { name: 'largest uint24 id', values: [0xff_ffff, 0x01_0203], format: 'uint24', bytes: 7 },
  { name: 'an id of 2^24', values: [0x100_0000, 1], format: 'uint32', bytes: 9 },
  { name: 'largest uint32 id', values: [0xffff_ffff, 0], format: 'uint32', bytes: 9 },
  { name: 'vLLM -inf stand-in', values: [-9999.0, -0.5, 0], format: 'float32', bytes: 13 },
  { name: 'float32 logprobs', values: [Math.fround(-0.1234), Math.fround(-7.25e-6)], format: 'float32', bytes: 9 },
  { name: 'negative zero is not uint32', values: [-0], format: 'float32', bytes: 5 },
  { name: 'a float64-only value', values: [Math.fround(-1.5), -0.1], format: 'float64', bytes: 17 },
  { name: 'id above uint32', values: [2 ** 32, 7], format: 'float32', bytes: 9 },
  { name: 'huge id beyond float32', values: [2 ** 53 - 1], format: 'float64', bytes: 9 },
];

describe('packNumberArray', () => {
  it.each(cases)('$name packs as $format in $bytes bytes and round-trips', ({ values, format, bytes }) => {
    expect(chooseNumberArrayFormat(values)).toBe(format);
    const blob = packNumberArray(values);
    expect(blob.length).toBe(bytes);
    const back = unpackNumberArray(blob);
    expect(back).toHaveLength(values.length);
    back.forEach((value, i) => expect(Object.is(value, values[i])).toBe(true));
  });

  it('writes little-endian uint32 and uint24 after a one-byte tag', () => {
    expect([...packNumberArray([0x01020304])]).toEqual([1, 4, 3, 2, 1]);
    expect([...packNumberArray([0x020304])]).toEqual([4, 4, 3, 2]);
  });

  it('still decodes token ids written as uint32 before uint24 existed', () => {
    expect(unpackNumberArray(Buffer.from([1, 0x1d, 0x50, 0x02, 0, 5, 0, 0, 0]))).toEqual([151_581, 5]);
  });

  it('keeps null and empty distinct', () => {
    expect(packNullableNumberArray(null)).toBeNull();
    expect(unpackNullableNumberArray(null)).toBeNull();
    expect(unpackNullableNumberArray(packNullableNumberArray([]))).toEqual([]);
  });

  it('decodes from an unaligned view (SQLite blobs may start anywhere)', () => {
    const blob = packNumberArray([1.5, -2.25]);
    const shifted = Buffer.alloc(blob.length + 3);
    blob.copy(shifted, 3);
    expect(unpackNumberArray(shifted.subarray(3))).toEqual([1.5, -2.25]);
  });

  it.each([
    { name: 'unknown tag', blob: Buffer.from([9, 0, 0, 0, 0]) },
    { name: 'truncated payload', blob: Buffer.from([1, 0, 0, 0]) },
    { name: 'no tag at all', blob: Buffer.alloc(0) },
  ])('rejects a blob with $name', ({ blob }) => {
    expect(() => unpackNumberArray(blob)).toThrow(DataError);
  });

  it('round-trips any uint32 token ids exactly, in 3 bytes each when all are below 2^24 and 4 otherwise', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 0xff_ffff }), fc.integer({ min: 0, max: 0xffff_ffff }))), (values) => {
        const blob = packNumberArray(values);
        const width = values.length > 0 && values.every((value) => value < 0x100_0000) ? 3 : 4;
        expect(blob.length).toBe(1 + width * values.length);
        expect(unpackNumberArray(blob)).toEqual(values);
      }),
    );
  });

  it('round-trips float32 logprobs exactly in 4 bytes each', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true, max: 0 })), (values) => {
        const blob = packNumberArray(values);
        expect(blob.length).toBeLessThanOrEqual(1 + 4 * values.length);
        const back = unpackNumberArray(blob);
        back.forEach((value, i) => expect(Object.is(value, values[i])).toBe(true));
      }),
    );
  });

  it('round-trips any NaN-free doubles exactly', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true })), (values) => {
        const back = unpackNumberArray(packNumberArray(values));
        expect(back).toHaveLength(values.length);
        back.forEach((value, i) => expect(Object.is(value, values[i])).toBe(true));
      }),
    );
  });
});
