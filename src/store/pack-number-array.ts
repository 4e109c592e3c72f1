// Packs number arrays (token ids, logprobs) into compact little-endian blobs that decode exactly.
import { DataError } from '../errors.js';

/** How the values of a packed array are stored; the first byte of the blob says which. */
export type NumberArrayFormat = 'uint24' | 'uint32' | 'float32' | 'float64';

// Tag 4 (uint24) was added for token ids (every vocabulary in use is < 2^24): 3 bytes instead of 4. Blobs of tags
// 1-3 written before it decode as they always did.
const TAG_BY_FORMAT: Record<NumberArrayFormat, number> = { uint32: 1, float32: 2, float64: 3, uint24: 4 };
const WIDTH_BY_FORMAT: Record<NumberArrayFormat, number> = { uint24: 3, uint32: 4, float32: 4, float64: 8 };

function formatOfTag(tag: number | undefined): NumberArrayFormat | undefined {
  switch (tag) {
    case 1:
      return 'uint32';
    case 2:
      return 'float32';
    case 3:
      return 'float64';
    case 4:
      return 'uint24';
    default:
      return undefined;
  }
}

/** True for an integer 0..2^32-1 (not -0): a value a Uint32Array holds exactly. */
export function isUint32(x: number): boolean {
  return Number.isInteger(x) && x >= 0 && x <= 0xffff_ffff && !Object.is(x, -0);
}

function isUint24(x: number): boolean {
  return Number.isInteger(x) && x >= 0 && x < 0x100_0000 && !Object.is(x, -0);
}

/** True when float32 holds the value exactly (vLLM logprobs are float32, so they always are). */
function isFloat32(x: number): boolean {
  return Object.is(Math.fround(x), x);
}

/**
 * The narrowest format that round-trips every value: uint24 for token ids below 2^24 (every tokenizer in
 * use), uint32 for larger ones, float32 for logprobs when every value is exactly a float32, float64
 * otherwise. An empty array is uint32 (the tag alone).
 */
export function chooseNumberArrayFormat(values: ArrayLike<number>): NumberArrayFormat {
  if (values instanceof Uint32Array) return values.length > 0 && maxOf(values) < 0x100_0000 ? 'uint24' : 'uint32';
  if (values.length > 0 && every(values, isUint24)) return 'uint24';
  if (every(values, isUint32)) return 'uint32';
  if (every(values, isFloat32)) return 'float32';
  return 'float64';
}

function every(values: ArrayLike<number>, test: (value: number) => boolean): boolean {
  for (let i = 0; i < values.length; i++) if (!test(values[i] as number)) return false;
  return true;
}

function maxOf(values: Uint32Array): number {
  let max = 0;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) > max) max = values[i] as number;
  return max;
}

/** Packs values as `[format tag][value, little-endian]*`. Lossless for every JS number. */
export function packNumberArray(values: ArrayLike<number>): Buffer {
  const format = chooseNumberArrayFormat(values);
  const width = WIDTH_BY_FORMAT[format];
  const blob = Buffer.alloc(1 + values.length * width);
  blob[0] = TAG_BY_FORMAT[format];
  const view = new DataView(blob.buffer, blob.byteOffset, blob.length);
  for (let i = 0; i < values.length; i++) {
    const offset = 1 + i * width;
    const value = values[i] as number;
    switch (format) {
      case 'uint24':
        blob[offset] = value & 0xff;
        blob[offset + 1] = (value >>> 8) & 0xff;
        blob[offset + 2] = value >>> 16;
        break;
      case 'uint32':
        view.setUint32(offset, value, true);
        break;
      case 'float32':
        view.setFloat32(offset, value, true);
        break;
      case 'float64':
        view.setFloat64(offset, value, true);
        break;
    }
  }
  return blob;
}

/** Inverse of packNumberArray. Throws DataError on an unknown tag or a truncated blob. */
export function unpackNumberArray(blob: Uint8Array): number[] {
  const format = formatOfTag(blob[0]);
  if (format === undefined) {
    throw new DataError(`Packed number array has unknown format tag ${String(blob[0])}.`, 'The database may be corrupt or written by a newer polar.');
  }
  const width = WIDTH_BY_FORMAT[format];
  if ((blob.length - 1) % width !== 0) {
    throw new DataError(`Packed ${format} array has ${blob.length - 1} payload bytes, not a multiple of ${width}.`, 'The database may be corrupt.');
  }
  const count = (blob.length - 1) / width;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.length);
  const values = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    const offset = 1 + i * width;
    switch (format) {
      case 'uint24':
        values[i] = (blob[offset] as number) | ((blob[offset + 1] as number) << 8) | ((blob[offset + 2] as number) << 16);
        break;
      case 'uint32':
        values[i] = view.getUint32(offset, true);
        break;
      case 'float32':
        values[i] = view.getFloat32(offset, true);
        break;
      case 'float64':
        values[i] = view.getFloat64(offset, true);
        break;
    }
  }
  return values;
}

/** packNumberArray that keeps null as null (null and empty stay distinct). */
export function packNullableNumberArray(values: ArrayLike<number> | null): Buffer | null {
  return values === null ? null : packNumberArray(values);
}

/** unpackNumberArray that keeps null as null. */
export function unpackNullableNumberArray(blob: Uint8Array | null): number[] | null {
  return blob === null ? null : unpackNumberArray(blob);
}
