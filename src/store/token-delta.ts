// Stores a token sequence as the length of the prefix it shares with a base sequence plus its tail.
import { commonPrefixLength } from '../capture/common-prefix-length.js';
import { DataError } from '../errors.js';

/** A sequence expressed against a base: `base[0, sharedLen) ++ tail`. */
export interface TokenDelta {
  sharedLen: number;
  tail: number[];
}

export { commonPrefixLength } from '../capture/common-prefix-length.js';

export function encodeTokenDelta(base: ArrayLike<number>, current: readonly number[]): TokenDelta {
  const sharedLen = commonPrefixLength(base, current);
  return { sharedLen, tail: current.slice(sharedLen) };
}

/** Inverse of encodeTokenDelta. Throws DataError when the base is shorter than the shared length. */
export function decodeTokenDelta(base: readonly number[], delta: TokenDelta): number[] {
  if (delta.sharedLen > base.length || delta.sharedLen < 0) {
    throw new DataError(`Token delta shares ${delta.sharedLen} tokens with a base of ${base.length}.`, 'The database may be corrupt.');
  }
  const out = base.slice(0, delta.sharedLen);
  for (const token of delta.tail) out.push(token);
  return out;
}
