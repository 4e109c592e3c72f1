import { describe, expect, it } from 'vitest';
import type { CanonicalRequest, StreamEvent } from '../../../src/providers/canonical.js';
import { createThinkingSignature } from '../../../src/providers/anthropic-messages/create-thinking-signature.js';
import { createAnthropicStreamEncoder } from '../../../src/providers/anthropic-messages/encode-anthropic-stream.js';

const request: CanonicalRequest = {
  protocol: 'anthropic-messages',
  model: 'client-model',
  messages: [],
  tools: [],
  sampling: {},
  stream: true,
};

const start: StreamEvent = { type: 'message-start', id: 'chatcmpl-7', model: 'upstream', created: 1, inputTokens: 30 };
const end = (stopReason: 'stop' | 'tool-calls' | 'length' = 'stop'): StreamEvent => ({
  type: 'message-end',
  stopReason,
  rawFinishReason: stopReason,
  usage: { inputTokens: 30, outputTokens: 9 },
});
const usage = { input_tokens: 30, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

/** Splits SSE text into frames, checking each frame's `event:` equals its payload's `type`. */
function parseFrames(text: string): unknown[] {
  expect(text.endsWith('\n\n') || text === '').toBe(true);
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      const match = /^event: (\w+)\ndata: (.*)$/s.exec(frame);
      expect(match).not.toBeNull();
      const data = JSON.parse(match?.[2] ?? '') as { type: string };
      expect(data.type).toBe(match?.[1]);
      return data;
    });
}

function encodeAll(events: StreamEvent[]): unknown[] {
  const encoder = createAnthropicStreamEncoder(request);
  return parseFrames(events.map((event) => encoder.encode(event)).join(''));
}

const messageStart = {
  type: 'message_start',
  message: {
    id: 'msg_chatcmpl-7',
    type: 'message',
    role: 'assistant',
    model: 'client-model',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 30, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  },
};

describe('createAnthropicStreamEncoder', () => {
  it('encodes reasoning, text and two parallel tool calls as separate closed blocks', () => {
    const frames = encodeAll([
      start,
      { type: 'reasoning-delta', text: 'Let me ' },
      { type: 'reasoning-delta', text: 'think.' },
      { type: 'text-delta', text: 'Reading ' },
      { type: 'text-delta', text: 'both.' },
      { type: 'tool-call-start', index: 0, id: 'call_a', name: 'Read' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":' },
      { type: 'tool-call-start', index: 1, id: 'call_b', name: 'Read' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{"path": "b"}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: ' "a"}' },
      end('tool-calls'),
    ]);
    expect(frames).toStrictEqual([
      messageStart,
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'think.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: createThinkingSignature('Let me think.') } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Reading ' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'both.' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_a', name: 'Read', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"path": "a"}' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'call_b', name: 'Read', input: {} } },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"path": "b"}' } },
      { type: 'content_block_stop', index: 3 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage },
      { type: 'message_stop' },
    ]);
  });

  it('starts a new block when the kind changes back (text → reasoning → text)', () => {
    const frames = encodeAll([
      start,
      { type: 'text-delta', text: 'a' },
      { type: 'reasoning-delta', text: 'b' },
      { type: 'text-delta', text: 'c' },
      end(),
    ]) as Array<{ type: string; index?: number; content_block?: { type: string } }>;
    const starts = frames.filter((frame) => frame.type === 'content_block_start').map((frame) => frame.content_block?.type);
    const stops = frames.filter((frame) => frame.type === 'content_block_stop').map((frame) => frame.index);
    expect(starts).toStrictEqual(['text', 'thinking', 'text']);
    expect(stops).toStrictEqual([0, 1, 2]);
  });

  it('sends a tool call with broken arguments wrapped, and a text-only turn as end_turn', () => {
    const frames = encodeAll([
      start,
      { type: 'tool-call-start', index: 0, id: 'c', name: 'Bash' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"command": "ls' },
      end('stop'),
    ]);
    expect(frames).toContainEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"_polar_raw_arguments":"{\\"command\\": \\"ls"}' },
    });
    expect(frames).toContainEqual({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage });
    expect(encodeAll([start, { type: 'text-delta', text: 'hi' }, end('length')])).toContainEqual({
      type: 'message_delta',
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage,
    });
  });

  it('sends nothing for empty deltas and a message without content', () => {
    expect(encodeAll([start, { type: 'text-delta', text: '' }, { type: 'reasoning-delta', text: '' }, end()])).toStrictEqual([
      messageStart,
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage },
      { type: 'message_stop' },
    ]);
  });

  it('encodes a mid-stream error as an error event', () => {
    const encoder = createAnthropicStreamEncoder(request);
    encoder.encode(start);
    encoder.encode({ type: 'text-delta', text: 'partial' });
    expect(parseFrames(encoder.error({ kind: 'upstream-unavailable', status: 503, message: 'vLLM went away' }))).toStrictEqual([
      { type: 'error', error: { type: 'overloaded_error', message: 'vLLM went away' } },
    ]);
    expect(encoder.encode(end())).toBe('');
  });

  const malformed: Array<{ name: string; events: StreamEvent[]; message: RegExp }> = [
    { name: 'an event before message-start', events: [{ type: 'text-delta', text: 'x' }], message: /before message-start/ },
    {
      name: 'arguments after the tool block was sent',
      events: [
        start,
        { type: 'tool-call-start', index: 0, id: 'c', name: 'n' },
        { type: 'text-delta', text: 'x' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '{}' },
      ],
      message: /after its tool_use block was sent/,
    },
    {
      name: 'a delta without a start',
      events: [start, { type: 'tool-call-delta', index: 3, argumentsDelta: '{}' }],
      message: /without a tool-call-start/,
    },
    {
      name: 'a repeated tool-call-start',
      events: [start, { type: 'tool-call-start', index: 0, id: 'c', name: 'n' }, { type: 'tool-call-start', index: 0, id: 'c', name: 'n' }],
      message: /came twice/,
    },
  ];

  it.each(malformed)('ends the stream with an api_error for $name, then stays silent', ({ events, message }) => {
    const encoder = createAnthropicStreamEncoder(request);
    const frames = parseFrames(events.map((event) => encoder.encode(event)).join('')) as Array<{
      type: string;
      error?: { type: string; message: string };
    }>;
    const last = frames.at(-1);
    expect(last?.type).toBe('error');
    expect(last?.error?.type).toBe('api_error');
    expect(last?.error?.message).toMatch(message);
    expect(encoder.encode(end())).toBe('');
  });
});
