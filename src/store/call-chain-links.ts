// Chain links for the delta-stored fields of a call: prompt ids and the diffed request bytes.
import { DataError } from '../errors.js';
import { decodeByteDelta } from './byte-delta.js';
import type { DiffedRawRow, PromptChainRow } from './call-row.js';
import { decompressBytes } from './compress-bytes.js';
import { unpackNumberArray } from './pack-number-array.js';
import type { ChainLink } from './resolve-chain.js';
import { decodeTokenDelta } from './token-delta.js';

/** A call's decoded prompt ids, and the base the next call's prompt is diffed against. */
export interface PromptValue {
  prompt: number[] | null;
  /** prompt ++ sampled ids; null when the prompt is null. */
  base: number[] | null;
}

export function createPromptLink(row: PromptChainRow): ChainLink<PromptValue> {
  return {
    baseId: row.prompt_base_call_id,
    apply(base) {
      if (row.prompt_ids_tail === null) return { prompt: null, base: null };
      const tail = unpackNumberArray(row.prompt_ids_tail);
      let prompt = tail;
      if (row.prompt_base_call_id !== null) {
        if (base === null || base.base === null) {
          throw new DataError(`Call ${row.id} stores its prompt ids against call ${row.prompt_base_call_id}, which has none.`, 'The database may be corrupt.');
        }
        prompt = decodeTokenDelta(base.base, { sharedLen: row.prompt_shared_len, tail });
      }
      const sampled = row.token_ids === null ? [] : unpackNumberArray(row.token_ids);
      return { prompt, base: prompt.concat(sampled) };
    },
  };
}

export function createRawLink(row: DiffedRawRow): ChainLink<Buffer | null> {
  return {
    baseId: row.base_id,
    apply(base) {
      if (row.blob === null) return null;
      const middle = decompressBytes(row.blob);
      if (row.base_id === null) return middle;
      if (base === null) {
        throw new DataError(`Call ${row.id} stores request bytes against call ${row.base_id}, which has none.`, 'The database may be corrupt.');
      }
      return decodeByteDelta(base, { prefixLen: row.prefix_len, suffixLen: row.suffix_len, middle });
    },
  };
}
