// The length of the prefix two token sequences share: the store's prompt deltas and the trajectory
// builders' prefix matching both rest on it.

/** Ids compared per memcmp on the typed fast path; the first unequal block is then scanned id by id. */
const BLOCK = 512;

/**
 * Length of the longest common prefix of `a` and `b` read from `bOffset` on (Object.is equality, so -0 and
 * 0 differ). The offset lets a caller compare against the middle of a prompt without copying it. Two
 * Uint32Arrays (the store's decoded prompts) are compared a block at a time with memcmp.
 */
export function commonPrefixLength(a: ArrayLike<number>, b: ArrayLike<number>, bOffset = 0): number {
  const limit = Math.max(0, Math.min(a.length, b.length - bOffset));
  let i = 0;
  if (a instanceof Uint32Array && b instanceof Uint32Array && limit >= BLOCK) i = equalBlocks(a, b, bOffset, limit);
  while (i < limit && Object.is(a[i], b[bOffset + i])) i++;
  return i;
}

/** How many leading ids (a multiple of BLOCK) are equal, compared as bytes (Uint32 has no -0 or NaN). */
function equalBlocks(a: Uint32Array, b: Uint32Array, bOffset: number, limit: number): number {
  const left = Buffer.from(a.buffer, a.byteOffset, limit * 4);
  const right = Buffer.from(b.buffer, b.byteOffset + bOffset * 4, limit * 4);
  let i = 0;
  while (i + BLOCK <= limit && left.compare(right, i * 4, (i + BLOCK) * 4, i * 4, (i + BLOCK) * 4) === 0) i += BLOCK;
  return i;
}
