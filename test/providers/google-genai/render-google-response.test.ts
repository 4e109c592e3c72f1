import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, CanonicalResponse, ErrorKind } from '../../../src/providers/canonical.js';
import { renderGoogleError } from '../../../src/providers/google-genai/render-google-error.js';
import { renderGoogleResponse } from '../../../src/providers/google-genai/render-google-response.js';

const request: CanonicalRequest = { protocol: 'google-genai', model: 'gemini-x', messages: [], tools: [], sampling: {}, stream: false };

const response = (overrides: Partial<CanonicalResponse>): CanonicalResponse => ({
  id: 'chatcmpl-3',
  model: 'qwen',
  content: [],
  stopReason: 'stop',
  rawFinishReason: 'stop',
  usage: { inputTokens: 10, outputTokens: 4 },
  created: 1,
  ...overrides,
});

describe('renderGoogleResponse', () => {
  it('renders thoughts, text and function calls with parsed args', () => {
    expect(
      renderGoogleResponse(
        response({
          content: [
            { type: 'reasoning', text: 'plan' },
            { type: 'text', text: 'Done.' },
            { type: 'text', text: '' },
            { type: 'tool-call', id: 'call_1', name: 'read_file', arguments: '{"file_path": "a"}' },
            { type: 'tool-call', id: 'call_2', name: 'glob', arguments: 'not json' },
          ],
          stopReason: 'tool-calls',
        }),
        request,
      ),
    ).toStrictEqual({
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'plan', thought: true },
              { text: 'Done.' },
              { functionCall: { id: 'call_1', name: 'read_file', args: { file_path: 'a' } } },
              { functionCall: { id: 'call_2', name: 'glob', args: { _polar_raw_arguments: 'not json' } } },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 4, totalTokenCount: 14 },
      modelVersion: 'gemini-x',
      responseId: 'chatcmpl-3',
    });
  });

  const finishCases = [
    { stop: 'stop', finish: 'STOP' },
    { stop: 'tool-calls', finish: 'STOP' },
    { stop: 'length', finish: 'MAX_TOKENS' },
    { stop: 'content-filter', finish: 'SAFETY' },
    { stop: 'other', finish: 'OTHER' },
  ] as const;

  it.each(finishCases)('maps $stop to $finish', ({ stop, finish }) => {
    expect(renderGoogleResponse(response({ stopReason: stop }), request).candidates[0]?.finishReason).toBe(finish);
  });
});

describe('renderGoogleError', () => {
  const cases: Array<{ kind: ErrorKind; status: number; name: string }> = [
    { kind: 'invalid-request', status: 400, name: 'INVALID_ARGUMENT' },
    { kind: 'context-overflow', status: 400, name: 'INVALID_ARGUMENT' },
    { kind: 'request-too-large', status: 413, name: 'INVALID_ARGUMENT' },
    { kind: 'authentication', status: 401, name: 'UNAUTHENTICATED' },
    { kind: 'not-found', status: 404, name: 'NOT_FOUND' },
    { kind: 'rate-limit', status: 429, name: 'RESOURCE_EXHAUSTED' },
    { kind: 'upstream-error', status: 502, name: 'INTERNAL' },
    { kind: 'internal', status: 500, name: 'INTERNAL' },
    { kind: 'upstream-unavailable', status: 503, name: 'UNAVAILABLE' },
    { kind: 'upstream-timeout', status: 504, name: 'DEADLINE_EXCEEDED' },
  ];

  it.each(cases)('$kind → $status $name', ({ kind, status, name }) => {
    expect(renderGoogleError({ kind, status, message: 'm' })).toStrictEqual({
      status,
      body: { error: { code: status, message: 'm', status: name } },
    });
  });
});
