// Stores a token sequence as the length of the prefix it shares with a base sequence plus its tail.
import { commonPrefixLength } from '../capture/common-prefix-length.js';
import { DataError } from '../errors.js';

/** A sequence expressed against a base: `base[0, sharedLen) ++ tail`. */
export interface TokenDelta {
  sharedLen: number;
  tail: ArrayLike<number>;
}

export { commonPrefixLength } from '../capture/common-prefix-length.js';

/** `sharedLen`: the common prefix of base and current when the caller already measured it. The tail of a typed array is a view. */
export function encodeTokenDelta(base: ArrayLike<number>, current: ArrayLike<number>, sharedLen = commonPrefixLength(base, current)): TokenDelta {
  const tail = current instanceof Uint32Array || current instanceof Float64Array ? current.subarray(sharedLen) : Array.prototype.slice.call(current, sharedLen);
  return { sharedLen, tail };
}

/** Inverse of encodeTokenDelta. Throws DataError when the base is shorter than the shared length. */
export function decodeTokenDelta(base: readonly number[], delta: TokenDelta): number[] {
  if (delta.sharedLen > base.length || delta.sharedLen < 0) {
    throw new DataError(`Token delta shares ${delta.sharedLen} tokens with a base of ${base.length}.`, 'The database may be corrupt.');
  }
  const out = base.slice(0, delta.sharedLen);
  for (let i = 0; i < delta.tail.length; i++) out.push(delta.tail[i] as number);
  return out;
}
