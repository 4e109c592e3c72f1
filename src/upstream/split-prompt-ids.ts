// A chat.completion (and a stream's first chunk) carries the whole prompt's token ids: 17k numbers for a 69 KB
// agent request, ~0.3 ms of JSON.parse. Split off as text, they are parsed by the store's commit worker
// (TokenCapture.promptTokenIdsJson), or on a stream after its first events reached the client.

/** vLLM writes compact JSON: the key, then the array. */
const KEY = '"prompt_token_ids":[';
/** Shorter arrays are parsed with the chunk: splitting them saves nothing. */
const MIN_SPLIT_CHARS = 4096;
/** Put where the ids were; found at the top level after parsing only if the cut was the top-level key. */
const MARK = '"\\u0000polar:split"';
const MARK_VALUE = '\u0000polar:split';

export interface SplitAnswer<T> {
  /** The parsed object with `prompt_token_ids: null`. */
  value: T;
  /** The ids' JSON text, `[...]` (parsePromptIdsJson). */
  promptIds: string;
}

/**
 * The parsed object without its top-level prompt ids, or undefined when there is nothing worth splitting or the
 * cut is not certain (the text then goes through JSON.parse whole, as before). Sound because a `"` inside a
 * JSON string is always escaped: the key can only occur as a key, and a cut at the wrong `]` leaves the
 * rest unbalanced, which JSON.parse rejects. A mark takes the ids' place and must come back as the
 * top-level value, so a nested or overridden (duplicate) key is never mistaken for it.
 */
/** Where an answer holds its prompt ids: at the top level (vLLM), or in its first choice (SGLang). */
export type PromptIdsPlace = 'top' | 'first-choice';

export function splitPromptIds<T>(data: string, place: PromptIdsPlace = 'top'): SplitAnswer<T> | undefined {
  const at = data.indexOf(KEY);
  if (at < 0) return undefined;
  const open = at + KEY.length - 1;
  const close = data.indexOf(']', open);
  if (close < 0 || close - open < MIN_SPLIT_CHARS || data.includes(MARK)) return undefined;
  let value: { prompt_token_ids?: unknown; choices?: unknown } | null;
  try {
    value = JSON.parse(`${data.slice(0, open)}${MARK}${data.slice(close + 1)}`) as typeof value;
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const holder = (place === 'top' ? value : Array.isArray(value.choices) ? value.choices[0] : undefined) as { prompt_token_ids?: unknown } | null | undefined;
  if (typeof holder !== 'object' || holder === null || holder.prompt_token_ids !== MARK_VALUE) return undefined;
  holder.prompt_token_ids = null;
  return { value: value as T, promptIds: data.slice(open, close + 1) };
}
