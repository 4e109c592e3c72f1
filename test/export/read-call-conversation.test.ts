// Chat messages of a captured call, re-parsed from its client request bytes, for every protocol.
import { describe, expect, it } from 'vitest';
import type { Protocol } from '../../src/providers/canonical.js';
import { readCallConversation } from '../../src/export/read-call-conversation.js';
import type { StoredCall } from '../../src/store/stored-call.js';

const schema = { type: 'object', properties: { command: { type: 'string' } } };

/** A call as `listBySession(..., { withRaw: true })` returns it, reduced to what the reader uses. */
function storedCall(protocol: Protocol, path: string, body: unknown): StoredCall {
  return {
    protocol,
    path,
    raw: { clientRequest: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), upstreamRequest: null, upstreamResponse: null },
    response: { id: 'r', model: 'm', content: [{ type: 'text', text: 'ok' }], stopReason: 'stop', rawFinishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 }, created: 1 },
  } as StoredCall;
}

const CASES: [Protocol, string, unknown][] = [
  ['openai-chat', '/v1/chat/completions', { model: 'm', messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'bash', parameters: schema } }] }],
  ['openai-responses', '/v1/responses', { model: 'm', instructions: 'sys', input: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', name: 'bash', parameters: schema }] }],
  ['anthropic-messages', '/v1/messages?beta=true', { model: 'm', max_tokens: 10, system: 'sys', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'bash', input_schema: schema }] }],
  ['google-genai', '/v1beta/models/qwen:streamGenerateContent?alt=sse', { systemInstruction: { parts: [{ text: 'sys' }] }, contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [{ functionDeclarations: [{ name: 'bash', parameters: schema }] }] }],
];

describe('readCallConversation', () => {
  it.each(CASES)('%s: request messages, then the answer, and the tools as OpenAI chat JSON', (protocol, path, body) => {
    expect(readCallConversation(storedCall(protocol, path, body))).toEqual({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'ok' },
      ],
      tools: [{ type: 'function', function: { name: 'bash', parameters: schema } }],
    });
  });

  it('gives tools null when the request declared none', () => {
    expect(readCallConversation(storedCall('openai-chat', '/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }))?.tools).toBeNull();
  });

  it.each([
    ['read without raw bytes', { ...storedCall('openai-chat', '/v1/chat/completions', {}), raw: null }],
    ['not JSON', storedCall('openai-chat', '/v1/chat/completions', '{"model":')],
    ['not a valid request', storedCall('anthropic-messages', '/v1/messages', { model: 'm', messages: 'nope' })],
  ])('returns null when %s', (_name, call) => {
    expect(readCallConversation(call as StoredCall)).toBeNull();
  });
});
