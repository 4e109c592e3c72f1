// Canonical conversations rendered as OpenAI chat messages and tools.
import { describe, expect, it } from 'vitest';
import { toChatMessages, toChatTools } from '../../src/export/to-chat-messages.js';
import type { CanonicalMessage, CanonicalResponse } from '../../src/providers/canonical.js';

const messages: CanonicalMessage[] = [
  { role: 'system', content: 'You are a coder.' },
  { role: 'user', content: [{ type: 'text', text: 'Fix ' }, { type: 'text', text: 'the bug.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Look first.' },
      { type: 'tool-call', id: 'call_1', name: 'bash', arguments: '{"cmd":"ls"}' },
    ],
  },
  { role: 'tool', toolCallId: 'call_1', content: [{ type: 'text', text: 'a.py' }] },
  { role: 'user', content: [{ type: 'image', url: 'data:image/png;base64,AA' }] },
];

const response: CanonicalResponse = {
  id: 'chatcmpl-1',
  model: 'm',
  content: [{ type: 'text', text: 'Done.' }],
  stopReason: 'stop',
  rawFinishReason: 'stop',
  usage: { inputTokens: 1, outputTokens: 1 },
  created: 0,
};

describe('toChatMessages', () => {
  it('renders every role and appends the response', () => {
    expect(toChatMessages(messages, response)).toEqual([
      { role: 'system', content: 'You are a coder.' },
      { role: 'user', content: 'Fix the bug.' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Look first.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"ls"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.py' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('renders tools as OpenAI function tools', () => {
    expect(toChatTools([{ name: 'bash', parameters: { type: 'object' } }])).toEqual([
      { type: 'function', function: { name: 'bash', parameters: { type: 'object' } } },
    ]);
  });
});
