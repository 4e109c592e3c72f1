// Deterministic, plausible logprobs for simulated tokens: float32 values in [-3, 0], most near 0. They are a
// function of (weight version, position, token id), so a weight update changes them token by token.
import { QWEN_FIRST_ADDED_ID } from './qwen-tokenizer.js';

function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A value in [0, 1) derived from (position, token id, salt, weight version); version 0 is the original weights. */
function unit(position: number, tokenId: number, salt = 0, version = 0): number {
  const base = mix(position, tokenId);
  return mix(version === 0 ? base : mix(base, 0x27d4eb2f + version), salt) / 2 ** 32;
}

/** The sampled token's logprob: -3 * u^6, so the median is about -0.05; exactly a float32 like vLLM's. */
export function sampledLogprob(position: number, tokenId: number, version = 0): number {
  const value = Math.fround(-3 * unit(position, tokenId, 0, version) ** 6);
  return value === 0 ? 0 : value;
}

/** `k - 1` other candidates for top_logprobs: distinct ordinary tokens sharing the remaining mass. */
export function alternativeLogprobs(position: number, tokenId: number, count: number, version = 0): { id: number; logprob: number }[] {
  const remaining = Math.max(1 - Math.exp(sampledLogprob(position, tokenId, version)), 1e-6);
  const out: { id: number; logprob: number }[] = [];
  const used = new Set([tokenId]);
  for (let salt = 1; out.length < count && salt < count * 8 + 16; salt++) {
    const id = Math.floor(unit(position, tokenId, salt, version) * QWEN_FIRST_ADDED_ID);
    if (used.has(id)) continue;
    used.add(id);
    const share = 0.6 * 0.4 ** out.length;
    out.push({ id, logprob: Math.max(Math.fround(Math.log(remaining * share)), -9999) });
  }
  return out;
}
