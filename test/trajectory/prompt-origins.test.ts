// Where the tokens of a continuing chain's prompt come from, carried through a drift hunk.
import { describe, expect, it } from 'vitest';
import { contextOrigin, continuedOrigins, FIRST_PROMPT_ORIGINS, firstPromptEnd } from '../../src/trajectory/prompt-origins.js';

describe('continuedOrigins', () => {
  // A row: a first prompt of 4 tokens, then a sampled turn (2), glue (2), a sampled turn (1).
  const row = { promptIds: [1, 2, 3, 4], responseIds: [10, 11, 20, 21, 12], lossMask: [1, 1, 0, 0, 1] as (0 | 1)[] };

  it('keeps each re-rendered token’s origin, gives a hunk its place and what follows the context to the glue', () => {
    // The next prompt renders the first turn as one token (a 2 -> 1 hunk), keeps the rest, then adds 3 new tokens.
    const origins = continuedOrigins(row, FIRST_PROMPT_ORIGINS, 11, [{ place: 'assistant-turn', contextIndex: 4, contextTokens: 2, promptTokens: 1 }]);
    expect(origins).toEqual([
      { start: 0, origin: 'first-prompt' },
      { start: 4, origin: 'assistant-turn' },
      { start: 5, origin: 'tool-result' },
      { start: 7, origin: 'assistant-turn' },
      { start: 8, origin: 'tool-result' },
    ]);
    const next = { promptIds: Array.from({ length: 11 }, (_, i) => i), responseIds: [30], lossMask: [1] as (0 | 1)[] };
    expect(firstPromptEnd(next, origins)).toBe(4);
    expect([3, 4, 5, 7, 10, 11].map((index) => contextOrigin(next, origins, index))).toEqual(['first-prompt', 'assistant-turn', 'tool-result', 'assistant-turn', 'tool-result', 'assistant-turn']);
  });

  it('carries a rewritten system turn as the first prompt, and an exact continuation unchanged', () => {
    const rewritten = continuedOrigins(row, FIRST_PROMPT_ORIGINS, 12, [{ place: 'system-prompt', contextIndex: 1, contextTokens: 0, promptTokens: 2 }]);
    expect(rewritten).toEqual([
      { start: 0, origin: 'first-prompt' },
      { start: 6, origin: 'assistant-turn' },
      { start: 8, origin: 'tool-result' },
      { start: 10, origin: 'assistant-turn' },
      { start: 11, origin: 'tool-result' },
    ]);
    expect(continuedOrigins(row, FIRST_PROMPT_ORIGINS, 9, [])).toEqual([
      { start: 0, origin: 'first-prompt' },
      { start: 4, origin: 'assistant-turn' },
      { start: 6, origin: 'tool-result' },
      { start: 8, origin: 'assistant-turn' },
    ]);
  });
});
