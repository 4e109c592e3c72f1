// Stores bytes as common-prefix length + common-suffix length + the differing middle of a base.
import { DataError } from '../errors.js';

/** `current = base[0, prefixLen) ++ middle ++ base[base.length - suffixLen, base.length)`. */
export interface ByteDelta {
  prefixLen: number;
  suffixLen: number;
  middle: Buffer;
}

const BLOCK = 4096;

/** Longest common prefix, compared a native block at a time before falling back to bytes. */
function prefixLength(a: Buffer, b: Buffer, limit: number): number {
  let i = 0;
  while (i + BLOCK <= limit && Buffer.compare(a.subarray(i, i + BLOCK), b.subarray(i, i + BLOCK)) === 0) i += BLOCK;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

/** Longest common suffix of at most `limit` bytes. */
function suffixLength(a: Buffer, b: Buffer, limit: number): number {
  let n = 0;
  while (n + BLOCK <= limit && Buffer.compare(a.subarray(a.length - n - BLOCK, a.length - n), b.subarray(b.length - n - BLOCK, b.length - n)) === 0) {
    n += BLOCK;
  }
  while (n < limit && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** The prefix and suffix never overlap, so the result decodes unambiguously. */
export function encodeByteDelta(base: Uint8Array, current: Uint8Array): ByteDelta {
  const a = asBuffer(base);
  const b = asBuffer(current);
  const prefixLen = prefixLength(a, b, Math.min(a.length, b.length));
  const suffixLen = suffixLength(a, b, Math.min(a.length, b.length) - prefixLen);
  return { prefixLen, suffixLen, middle: Buffer.from(b.subarray(prefixLen, b.length - suffixLen)) };
}

/** Inverse of encodeByteDelta. Throws DataError when the lengths do not fit the base. */
export function decodeByteDelta(base: Uint8Array, delta: ByteDelta): Buffer {
  const { prefixLen, suffixLen, middle } = delta;
  if (prefixLen < 0 || suffixLen < 0 || prefixLen + suffixLen > base.length) {
    throw new DataError(`Byte delta keeps ${prefixLen}+${suffixLen} bytes of a ${base.length}-byte base.`, 'The database may be corrupt.');
  }
  const a = asBuffer(base);
  return Buffer.concat([a.subarray(0, prefixLen), middle, a.subarray(a.length - suffixLen)]);
}
