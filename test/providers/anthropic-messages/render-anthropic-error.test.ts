import { describe, expect, it } from 'vitest';
import type { ErrorKind } from '../../../src/providers/canonical.js';
import { parseContextOverflow } from '../../../src/providers/anthropic-messages/parse-context-overflow.js';
import { formatContextOverflow, renderAnthropicError } from '../../../src/providers/anthropic-messages/render-anthropic-error.js';

describe('renderAnthropicError', () => {
  const cases: Array<{ kind: ErrorKind; status: number; type: string }> = [
    { kind: 'invalid-request', status: 400, type: 'invalid_request_error' },
    { kind: 'authentication', status: 401, type: 'authentication_error' },
    { kind: 'not-found', status: 404, type: 'not_found_error' },
    { kind: 'request-too-large', status: 413, type: 'request_too_large' },
    { kind: 'context-overflow', status: 400, type: 'invalid_request_error' },
    { kind: 'rate-limit', status: 429, type: 'rate_limit_error' },
    { kind: 'upstream-error', status: 502, type: 'api_error' },
    { kind: 'upstream-unavailable', status: 503, type: 'overloaded_error' },
    { kind: 'upstream-timeout', status: 504, type: 'timeout_error' },
    { kind: 'internal', status: 500, type: 'api_error' },
  ];

  it.each(cases)('$kind → $status $type', ({ kind, status, type }) => {
    expect(renderAnthropicError({ kind, status, message: 'boom' })).toStrictEqual({
      status,
      body: { type: 'error', error: { type, message: 'boom' } },
    });
  });
});

describe('context overflow messages', () => {
  const cases = [
    {
      name: 'current vLLM, prompt fits but not with max_tokens',
      upstream:
        "This model's maximum context length is 32768 tokens. However, you requested 32000 output tokens and your prompt contains at least 8193 input tokens, for a total of at least 40193 tokens. Please reduce the length of the input prompt or the number of requested output tokens.",
      parsed: { maxContextTokens: 32768, completionTokens: 32000, promptTokens: 8193 },
      anthropic:
        'input length and `max_tokens` exceed context limit: 8193 + 32000 > 32768, decrease input length or `max_tokens` and try again',
    },
    {
      name: 'older vLLM, prompt alone too long',
      upstream:
        "This model's maximum context length is 32768 tokens. However, you requested 41000 tokens (40000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      parsed: { maxContextTokens: 32768, promptTokens: 40000, completionTokens: 1000 },
      anthropic: 'prompt is too long: 40000 tokens > 32768 maximum',
    },
    {
      name: 'max_tokens too large',
      upstream:
        "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 32768 tokens and your request has 32000 input tokens (1000 > 32768 - 32000).",
      parsed: { completionTokens: 1000, maxContextTokens: 32768, promptTokens: 32000 },
      anthropic:
        'input length and `max_tokens` exceed context limit: 32000 + 1000 > 32768, decrease input length or `max_tokens` and try again',
    },
    {
      name: 'prompt-only count',
      upstream: "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens. Please reduce the length of the input messages.",
      parsed: { maxContextTokens: 4096, promptTokens: 5000 },
      anthropic: 'prompt is too long: 5000 tokens > 4096 maximum',
    },
    {
      name: 'unknown text passes through',
      upstream: 'context window exceeded',
      parsed: undefined,
      anthropic: 'context window exceeded',
    },
  ];

  it.each(cases)('$name', ({ upstream, parsed, anthropic }) => {
    expect(parseContextOverflow(upstream)).toStrictEqual(parsed);
    expect(formatContextOverflow(upstream)).toBe(anthropic);
    expect(renderAnthropicError({ kind: 'context-overflow', status: 400, message: upstream }).body.error.message).toBe(anthropic);
  });

  it('only rewrites context-overflow errors', () => {
    const upstream = "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens.";
    expect(renderAnthropicError({ kind: 'invalid-request', status: 400, message: upstream }).body.error.message).toBe(upstream);
  });
});
