import { describe, expect, it } from 'vitest';
import type { ErrorKind } from '../../../src/providers/canonical.js';
import { renderOpenAIError } from '../../../src/providers/openai-chat/render-openai-error.js';

describe('renderOpenAIError', () => {
  it.each<[ErrorKind, number, number, string, string | null]>([
    ['invalid-request', 400, 400, 'invalid_request_error', null],
    ['authentication', 401, 401, 'invalid_request_error', 'invalid_api_key'],
    ['not-found', 404, 404, 'invalid_request_error', null],
    ['request-too-large', 413, 413, 'invalid_request_error', null],
    ['context-overflow', 400, 400, 'invalid_request_error', 'context_length_exceeded'],
    ['rate-limit', 429, 429, 'rate_limit_error', 'rate_limit_exceeded'],
    ['upstream-error', 502, 502, 'server_error', null],
    ['upstream-error', 422, 422, 'invalid_request_error', null],
    ['upstream-error', 200, 502, 'server_error', null],
    ['upstream-unavailable', 503, 503, 'server_error', null],
    ['upstream-timeout', 504, 504, 'server_error', null],
    ['internal', 500, 500, 'server_error', null],
  ])('%s (given %i) answers %i %s code %s', (kind, given, status, type, code) => {
    expect(renderOpenAIError({ kind, message: `${kind} happened`, status: given })).toStrictEqual({
      status,
      body: { error: { message: `${kind} happened`, type, param: null, code } },
    });
  });
});
