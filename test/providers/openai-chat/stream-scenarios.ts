// Canonical turns shared by the OpenAI Chat and Responses adapter tests: the same answer as a
// stream event sequence and as a finished CanonicalResponse.
import { expect } from 'vitest';
import type { CanonicalRequest, CanonicalResponse, StreamEvent } from '../../../src/providers/canonical.js';

export const READ_ARGS_A = '{"path":"a.txt"}';
export const READ_ARGS_B = '{"path":"b.txt"}';

/** Reasoning, then text, then two parallel tool calls, as vLLM streams them. */
export const REASONING_TEXT_TWO_TOOLS: StreamEvent[] = [
  { type: 'message-start', id: 'chatcmpl-abc', model: 'qwen3-8b', created: 1_700_000_000, inputTokens: 42 },
  { type: 'reasoning-delta', text: 'Need both ' },
  { type: 'reasoning-delta', text: 'files.' },
  { type: 'text-delta', text: 'Reading ' },
  { type: 'text-delta', text: 'them.' },
  { type: 'tool-call-start', index: 0, id: 'call_a', name: 'read' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path":' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"a.txt"}' },
  { type: 'tool-call-start', index: 1, id: 'call_b', name: 'read' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: READ_ARGS_B },
  { type: 'message-end', stopReason: 'tool-calls', rawFinishReason: 'tool_calls', usage: { inputTokens: 42, outputTokens: 17 } },
];

export const REASONING_TEXT_TWO_TOOLS_RESPONSE: CanonicalResponse = {
  id: 'chatcmpl-abc',
  model: 'qwen3-8b',
  content: [
    { type: 'reasoning', text: 'Need both files.' },
    { type: 'text', text: 'Reading them.' },
    { type: 'tool-call', id: 'call_a', name: 'read', arguments: READ_ARGS_A },
    { type: 'tool-call', id: 'call_b', name: 'read', arguments: READ_ARGS_B },
  ],
  stopReason: 'tool-calls',
  rawFinishReason: 'tool_calls',
  usage: { inputTokens: 42, outputTokens: 17 },
  created: 1_700_000_000,
};

/** A plain answer cut off by max tokens. */
export const TRUNCATED_TEXT: StreamEvent[] = [
  { type: 'message-start', id: 'chatcmpl-len', model: 'qwen3-8b', created: 1_700_000_001 },
  { type: 'text-delta', text: 'Once upon' },
  { type: 'message-end', stopReason: 'length', rawFinishReason: 'length', usage: { inputTokens: 5, outputTokens: 2 } },
];

export function canonicalRequest(protocol: CanonicalRequest['protocol'], stream = true): CanonicalRequest {
  return {
    protocol,
    model: 'client-model',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'read a and b' }] }],
    tools: [{ name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
    sampling: {},
    stream,
  };
}

/** Splits SSE text into frames (`event`, parsed `data`); `[DONE]` stays a string. */
export function parseSseFrames(text: string): { event?: string; data: unknown }[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
      const data = lines.find((line) => line.startsWith('data: '))?.slice('data: '.length) ?? '';
      expect(lines.length).toBe(event === undefined ? 1 : 2);
      const parsed: unknown = data === '[DONE]' ? data : JSON.parse(data);
      return event === undefined ? { data: parsed } : { event, data: parsed };
    });
}
