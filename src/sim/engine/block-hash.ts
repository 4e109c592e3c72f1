// Chained hashes of full KV blocks (vLLM's block_hashes): a block's hash covers its tokens and every block before it.

/** The parent of the first block. */
export const ROOT_BLOCK_HASH = 0;

function round(h: number, value: number, multiplier: number): number {
  let x = Math.imul(value, multiplier);
  x = (x << 15) | (x >>> 17);
  h ^= Math.imul(x, 0x1b873593);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function finish(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Hash of one block of `size` tokens starting at `start` (read through `tokenAt`), chained to `parent`.
 * 53 bits from two independent 32-bit lanes: collisions are negligible at simulation scale.
 */
export function hashBlock(parent: number, tokenAt: (index: number) => number, start: number, size: number): number {
  let a = Math.floor(parent / 2 ** 21) | 0;
  let b = (parent % 2 ** 21) | 0;
  for (let i = start; i < start + size; i++) {
    const token = tokenAt(i);
    a = round(a, token, 0xcc9e2d51);
    b = round(b, token ^ 0x5bd1e995, 0x85ebca77);
  }
  return finish(a ^ size) * 2 ** 21 + (finish(b) >>> 11);
}
