// A row's capture field from its calls' modes and token-in fallbacks.
import { describe, expect, it } from 'vitest';
import { rowCapture } from '../../src/export/row-capture.js';

const opened = { mode: 'chat' as const, tokenInFallback: { reason: 'no-lineage', detail: 'the session has no open lineage yet' } };
const continued = { mode: 'token_in' as const, tokenInFallback: null };
const chat = { mode: 'chat' as const };

describe('rowCapture', () => {
  it('token_in: the lineage opened the chat way, then continued as token ids (or a one-call lineage)', () => {
    expect(rowCapture([opened, continued, continued])).toBe('token_in');
    expect(rowCapture([opened])).toBe('token_in');
    expect(rowCapture([continued])).toBe('token_in');
  });

  it('chat: no call went token-in or fell back from it (also calls recorded before modes were)', () => {
    expect(rowCapture([chat, chat])).toBe('chat');
    expect(rowCapture([{}, { mode: null }])).toBe('chat');
  });

  it('mixed: a call fell back to chat for another typed reason, or the modes differ', () => {
    for (const reason of ['assistant-edited', 'context-rewritten', 'no-eos', 'tokenize-failed', 'unsupported-request']) {
      expect(rowCapture([{ mode: 'chat', tokenInFallback: { reason, detail: '' } }, continued])).toBe('mixed');
    }
    expect(rowCapture([{ mode: 'chat', tokenInFallback: { reason: 'tokenize-failed', detail: '' } }])).toBe('mixed');
    expect(rowCapture([chat, continued])).toBe('mixed');
  });
});
