import { describe, expect, it } from 'vitest';
import { classifyUpstreamError } from '../../src/gateway/classify-upstream-error.js';

const body = (message: string) => Buffer.from(JSON.stringify({ error: { message, type: 'BadRequestError', param: null, code: 400 } }));

describe('classifyUpstreamError', () => {
  it.each([
    [400, "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.", 'context_overflow', 'prompt is too long: 39000 tokens > 32768 maximum'],
    [400, 'The prompt (length 40000) is longer than the maximum model length of 32768.', 'context_overflow', 'prompt is too long: 40000 tokens > 32768 maximum'],
    [400, "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length is 256 tokens and your request has 300 input tokens (1000 > 256 - 300). None", 'context_overflow', 'prompt is too long: 300 tokens > 256 maximum'],
    [400, "This model's maximum context length is 256 tokens. However, your request has 300 input tokens. Please reduce the length of the input messages. None", 'context_overflow', 'prompt is too long: 300 tokens > 256 maximum'],
    [400, "This model's maximum context length is 256 tokens. However, you requested 300 tokens in the messages, Please reduce the length of the messages.", 'context_overflow', 'prompt is too long: 300 tokens > 256 maximum'],
    // SGLang (its top-level {object:"error", message} body is read too; see the SGLang case below).
    [400, "The input (40000 tokens) is longer than the model's context length (32768 tokens).", 'context_overflow', 'prompt is too long: 40000 tokens > 32768 maximum'],
    [400, "Requested token count exceeds the model's maximum context length of 32768 tokens. You requested a total of 40000 tokens: 39000 tokens from the input messages and 1000 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.", 'context_overflow', 'prompt is too long: 39000 tokens > 32768 maximum'],
    [400, 'temperature must be non-negative', 'upstream_error', 'upstream rejected the request: temperature must be non-negative'],
    [500, 'engine dead', 'upstream_error', 'upstream answered HTTP 500: engine dead'],
    [429, 'slow down', 'upstream_error', 'slow down'],
  ])('HTTP %i "%s" → %s', (status, message, callStatus, clientMessage) => {
    const classified = classifyUpstreamError(status, body(message));
    expect(classified.status).toBe(callStatus);
    expect(classified.error.message.startsWith(clientMessage)).toBe(true);
  });

  it("reads SGLang's top-level error body", () => {
    const sglang = Buffer.from(JSON.stringify({ object: 'error', message: "The input (9 tokens) is longer than the model's context length (8 tokens).", type: 'BadRequest', param: null, code: 400 }));
    expect(classifyUpstreamError(400, sglang)).toMatchObject({ status: 'context_overflow', error: { message: expect.stringMatching(/^prompt is too long: 9 tokens > 8 maximum/) } });
  });

  it('keeps a non-JSON body as the message', () => {
    expect(classifyUpstreamError(502, Buffer.from('Bad Gateway')).error).toEqual({ kind: 'upstream-error', status: 502, message: 'upstream answered HTTP 502: Bad Gateway' });
  });
});
