// A stream's first chunk carries the whole prompt's token ids (17k numbers for a 69 KB agent request, ~0.3 ms
// of JSON.parse). Splitting them off lets the chunk's events reach the client first; the ids are parsed
// right after that write, before the next upstream read.
import type { ChatCompletionChunkWire } from './vllm-api-types.js';

/** vLLM writes compact JSON: the key, then the array. */
const KEY = '"prompt_token_ids":[';
/** Shorter arrays are parsed with the chunk: splitting them saves nothing. */
const MIN_SPLIT_CHARS = 4096;
/** Put where the ids were; found at the top level after parsing only if the cut was the top-level key. */
const MARK = '"\\u0000polar:split"';
const MARK_VALUE = '\u0000polar:split';

export interface SplitChunk {
  /** The chunk with `prompt_token_ids: null`. */
  chunk: ChatCompletionChunkWire;
  /** The ids' JSON text, `[...]`, parsed later with parsePromptIds. */
  promptIds: string;
}

/**
 * The chunk without its top-level prompt ids, or undefined when there is nothing worth splitting or the
 * cut is not certain (the text then goes through JSON.parse whole, as before). Sound because a `"` inside a
 * JSON string is always escaped: the key can only occur as a key, and a cut at the wrong `]` leaves the
 * rest unbalanced, which JSON.parse rejects. A mark takes the ids' place and must come back as the
 * top-level value, so a nested or overridden (duplicate) key is never mistaken for it.
 */
export function splitPromptIds(data: string): SplitChunk | undefined {
  const at = data.indexOf(KEY);
  if (at < 0) return undefined;
  const open = at + KEY.length - 1;
  const close = data.indexOf(']', open);
  if (close < 0 || close - open < MIN_SPLIT_CHARS || data.includes(MARK)) return undefined;
  let chunk: { prompt_token_ids?: unknown } | null;
  try {
    chunk = JSON.parse(`${data.slice(0, open)}${MARK}${data.slice(close + 1)}`) as typeof chunk;
  } catch {
    return undefined;
  }
  if (typeof chunk !== 'object' || chunk === null || chunk.prompt_token_ids !== MARK_VALUE) return undefined;
  chunk.prompt_token_ids = null;
  return { chunk: chunk as ChatCompletionChunkWire, promptIds: data.slice(open, close + 1) };
}

/** The ids split off by splitPromptIds. Throws Error when the text is not a JSON array. */
export function parsePromptIds(text: string): number[] {
  const ids: unknown = JSON.parse(text);
  if (!Array.isArray(ids)) throw new Error('prompt_token_ids is not an array');
  return ids as number[];
}
