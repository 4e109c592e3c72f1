import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, CanonicalResponse } from '../../../src/providers/canonical.js';
import { createThinkingSignature } from '../../../src/providers/anthropic-messages/create-thinking-signature.js';
import { renderAnthropicResponse } from '../../../src/providers/anthropic-messages/render-anthropic-response.js';

const request: CanonicalRequest = {
  protocol: 'anthropic-messages',
  model: 'client-model',
  messages: [],
  tools: [],
  sampling: {},
  stream: false,
};

const response = (overrides: Partial<CanonicalResponse>): CanonicalResponse => ({
  id: 'chatcmpl-1',
  model: 'upstream-model',
  content: [],
  stopReason: 'stop',
  rawFinishReason: 'stop',
  usage: { inputTokens: 12, outputTokens: 7 },
  created: 1,
  ...overrides,
});

describe('renderAnthropicResponse', () => {
  it('renders reasoning, text and a tool call with a derived signature', () => {
    const rendered = renderAnthropicResponse(
      response({
        content: [
          { type: 'reasoning', text: 'think' },
          { type: 'text', text: 'Running it.' },
          { type: 'tool-call', id: 'chatcmpl-tool-9', name: 'Bash', arguments: '{"command": "ls"}' },
        ],
        stopReason: 'tool-calls',
        rawFinishReason: 'tool_calls',
      }),
      request,
    );
    expect(rendered).toStrictEqual({
      id: 'msg_chatcmpl-1',
      type: 'message',
      role: 'assistant',
      model: 'client-model',
      content: [
        { type: 'thinking', thinking: 'think', signature: createThinkingSignature('think') },
        { type: 'text', text: 'Running it.' },
        { type: 'tool_use', id: 'chatcmpl-tool-9', name: 'Bash', input: { command: 'ls' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });

  const stopCases: Array<{ stop: CanonicalResponse['stopReason']; tools: boolean; expected: string }> = [
    { stop: 'stop', tools: false, expected: 'end_turn' },
    { stop: 'stop', tools: true, expected: 'tool_use' },
    { stop: 'tool-calls', tools: true, expected: 'tool_use' },
    { stop: 'length', tools: false, expected: 'max_tokens' },
    { stop: 'length', tools: true, expected: 'max_tokens' },
    { stop: 'content-filter', tools: false, expected: 'refusal' },
    { stop: 'other', tools: false, expected: 'end_turn' },
  ];

  it.each(stopCases)('maps $stop (tool calls: $tools) to $expected', ({ stop, tools, expected }) => {
    const content: CanonicalResponse['content'] = tools ? [{ type: 'tool-call', id: 'c', name: 'n', arguments: '{}' }] : [];
    expect(renderAnthropicResponse(response({ content, stopReason: stop }), request).stop_reason).toBe(expected);
  });

  const argumentCases = [
    { name: 'valid object', text: '{"a":1}', input: { a: 1 } },
    { name: 'empty text is no arguments', text: '  ', input: {} },
    { name: 'broken JSON is wrapped, not repaired', text: '{"a": 1', input: { _polar_raw_arguments: '{"a": 1' } },
    { name: 'a JSON array is wrapped', text: '[1]', input: { _polar_raw_arguments: '[1]' } },
  ];

  it.each(argumentCases)('tool input: $name', ({ text, input }) => {
    const rendered = renderAnthropicResponse(
      response({ content: [{ type: 'tool-call', id: 'c', name: 'n', arguments: text }] }),
      request,
    );
    expect(rendered.content).toStrictEqual([{ type: 'tool_use', id: 'c', name: 'n', input }]);
  });

  it('keeps a replayed signature, skips empty parts and keeps an msg_ id', () => {
    const rendered = renderAnthropicResponse(
      response({
        id: 'msg_abc',
        content: [
          { type: 'reasoning', text: 'x', signature: 'given' },
          { type: 'reasoning', text: '' },
          { type: 'text', text: '' },
        ],
      }),
      request,
    );
    expect(rendered.id).toBe('msg_abc');
    expect(rendered.content).toStrictEqual([{ type: 'thinking', thinking: 'x', signature: 'given' }]);
  });
});

describe('createThinkingSignature', () => {
  it('is deterministic, non-empty and marked as polar', () => {
    expect(createThinkingSignature('a')).toBe(createThinkingSignature('a'));
    expect(createThinkingSignature('a')).not.toBe(createThinkingSignature('b'));
    expect(createThinkingSignature('')).toMatch(/^polar\.[A-Za-z0-9+/]{43}=$/);
  });
});
