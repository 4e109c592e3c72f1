import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, StreamEvent } from '../../../src/providers/canonical.js';
import { createGoogleStreamEncoder } from '../../../src/providers/google-genai/encode-google-stream.js';

const request: CanonicalRequest = { protocol: 'google-genai', model: 'gemini-x', messages: [], tools: [], sampling: {}, stream: true };
const start: StreamEvent = { type: 'message-start', id: 'chatcmpl-5', model: 'qwen', created: 1 };
const end: StreamEvent = { type: 'message-end', stopReason: 'tool-calls', rawFinishReason: 'tool_calls', usage: { inputTokens: 8, outputTokens: 5 } };
const meta = { modelVersion: 'gemini-x', responseId: 'chatcmpl-5' };

function parseChunks(text: string): unknown[] {
  return text
    .split('\r\n\r\n')
    .filter((chunk) => chunk !== '')
    .map((chunk) => {
      expect(chunk.startsWith('data: ')).toBe(true);
      return JSON.parse(chunk.slice('data: '.length));
    });
}

const model = (parts: unknown[]) => ({ content: { role: 'model', parts }, index: 0 });

describe('createGoogleStreamEncoder', () => {
  it('streams thoughts and text as they come and sends parallel calls complete, in one chunk', () => {
    const encoder = createGoogleStreamEncoder(request);
    const outputs = [
      start,
      { type: 'reasoning-delta', text: 'plan ' },
      { type: 'text-delta', text: 'Reading.' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'read_file' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"file_path"' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'read_file' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"file_path": "b"}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ': "a"}' },
      end,
    ].map((event) => encoder.encode(event as StreamEvent));
    expect(outputs[0]).toBe('');
    expect(outputs.slice(3, 8)).toStrictEqual(['', '', '', '', '']);
    expect(parseChunks(outputs.join(''))).toStrictEqual([
      { candidates: [model([{ text: 'plan ', thought: true }])], ...meta },
      { candidates: [model([{ text: 'Reading.' }])], ...meta },
      {
        candidates: [
          {
            ...model([
              { functionCall: { id: 'call_a', name: 'read_file', args: { file_path: 'a' } } },
              { functionCall: { id: 'call_b', name: 'read_file', args: { file_path: 'b' } } },
            ]),
            finishReason: 'STOP',
          },
        ],
        usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 5, totalTokenCount: 13 },
        ...meta,
      },
    ]);
  });

  it('flushes pending calls before later text, and ends with a finish-only chunk', () => {
    const encoder = createGoogleStreamEncoder(request);
    const text = [
      start,
      { type: 'tool-call-start', index: 0, id: 'c', name: 'f' },
      { type: 'text-delta', text: 'after' },
      { type: 'text-delta', text: '' },
      { ...end, stopReason: 'length' },
    ]
      .map((event) => encoder.encode(event as StreamEvent))
      .join('');
    expect(parseChunks(text)).toStrictEqual([
      { candidates: [model([{ functionCall: { id: 'c', name: 'f', args: {} } }])], ...meta },
      { candidates: [model([{ text: 'after' }])], ...meta },
      {
        candidates: [{ finishReason: 'MAX_TOKENS', index: 0 }],
        usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 5, totalTokenCount: 13 },
        ...meta,
      },
    ]);
  });

  it('writes a mid-stream error as the bare error JSON and then stays silent', () => {
    const encoder = createGoogleStreamEncoder(request);
    encoder.encode(start);
    const error = encoder.error({ kind: 'upstream-unavailable', status: 503, message: 'gone' });
    expect(JSON.parse(error)).toStrictEqual({ error: { code: 503, message: 'gone', status: 'UNAVAILABLE' } });
    expect(encoder.encode(end)).toBe('');
  });

  it('ends with an INTERNAL error for a malformed sequence', () => {
    const encoder = createGoogleStreamEncoder(request);
    encoder.encode(start);
    encoder.encode({ type: 'tool-call-start', index: 0, id: 'c', name: 'f' });
    encoder.encode({ type: 'text-delta', text: 'x' });
    const output = encoder.encode({ type: 'tool-call-delta', index: 0, argumentsDelta: '{}' });
    expect(JSON.parse(output)).toMatchObject({ error: { code: 500, status: 'INTERNAL', message: expect.stringMatching(/after the call was sent/) } });
    expect(encoder.encode(end)).toBe('');
  });
});
