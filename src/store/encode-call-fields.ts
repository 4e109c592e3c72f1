// Encodes a call's prompt ids and request bytes against the previous call of its session.
import type { CallSamplingValues } from '../capture/call-record.js';
import { compressBytes } from './compress-bytes.js';
import { encodeByteDelta } from './byte-delta.js';
import { shouldStoreDelta } from './delta-policy.js';
import { packNumberArray } from './pack-number-array.js';
import { encodeTokenDelta } from './token-delta.js';

/** The previous call of the session, decoded: what the next call is diffed against. */
export interface PriorCall {
  id: number;
  /**
   * Its prompt ids followed by its sampled ids; null when it captured no prompt ids. The writer's
   * cache keeps them as a Uint32Array when every id fits (half the memory of a number[]).
   */
  promptBase: ArrayLike<number> | null;
  clientRequest: Buffer;
  upstreamRequest: Buffer | null;
}

export interface EncodedPrompt {
  tail: Buffer | null;
  baseCallId: number | null;
  sharedLen: number;
}

export interface EncodedBytes {
  blob: Buffer | null;
  baseCallId: number | null;
  prefixLen: number;
  suffixLen: number;
}

/**
 * Prompt ids as (base, shared prefix length, packed tail), or in full at a checkpoint or short overlap.
 * `sharedLen`: the prefix the prompt shares with `prior.promptBase`, when the caller already measured it.
 */
export function encodePromptIds(prior: PriorCall | undefined, prompt: ArrayLike<number> | null, seq: number, sharedLen?: number | null): EncodedPrompt {
  if (prompt === null) return { tail: null, baseCallId: null, sharedLen: 0 };
  if (prior !== undefined && prior.promptBase !== null) {
    const delta = encodeTokenDelta(prior.promptBase, prompt, sharedLen ?? undefined);
    if (shouldStoreDelta(seq, delta.sharedLen, prompt.length)) {
      return { tail: packNumberArray(delta.tail), baseCallId: prior.id, sharedLen: delta.sharedLen };
    }
  }
  return { tail: packNumberArray(prompt), baseCallId: null, sharedLen: 0 };
}

/** Request bytes as (base, prefix length, suffix length, compressed middle), or compressed in full. */
export function encodeRequestBytes(priorId: number | undefined, base: Buffer | null | undefined, current: Buffer | null, seq: number): EncodedBytes {
  if (current === null) return { blob: null, baseCallId: null, prefixLen: 0, suffixLen: 0 };
  if (priorId !== undefined && base !== undefined && base !== null) {
    const delta = encodeByteDelta(base, current);
    if (shouldStoreDelta(seq, delta.prefixLen + delta.suffixLen, current.length)) {
      return { blob: compressBytes(delta.middle), baseCallId: priorId, prefixLen: delta.prefixLen, suffixLen: delta.suffixLen };
    }
  }
  return { blob: compressBytes(current), baseCallId: null, prefixLen: 0, suffixLen: 0 };
}

/** Sampling values as JSON text (NULL when not known). */
export function encodeSampling(values: CallSamplingValues | null | undefined): string | null {
  return values === null || values === undefined ? null : JSON.stringify(values);
}
