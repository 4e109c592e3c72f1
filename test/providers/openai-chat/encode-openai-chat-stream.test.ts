import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/providers/canonical.js';
import { OpenAIChatStreamEncoder } from '../../../src/providers/openai-chat/encode-openai-chat-stream.js';
import { canonicalRequest, parseSseFrames, REASONING_TEXT_TWO_TOOLS, TRUNCATED_TEXT } from './stream-scenarios.js';

const HEAD = { id: 'chatcmpl-abc', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'qwen3-8b' };
const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
  data: { ...HEAD, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] },
});

function encodeAll(events: StreamEvent[], includeUsage: boolean): string[] {
  const encoder = new OpenAIChatStreamEncoder(canonicalRequest('openai-chat'), { includeUsage });
  return events.map((event) => encoder.encode(event));
}

describe('OpenAIChatStreamEncoder', () => {
  it('encodes reasoning, text and two parallel tool calls as chat.completion.chunk frames', () => {
    const frames = parseSseFrames(encodeAll(REASONING_TEXT_TWO_TOOLS, true).join(''));
    expect(frames).toStrictEqual([
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Need both ', reasoning: 'Need both ' }),
      chunk({ reasoning_content: 'files.', reasoning: 'files.' }),
      chunk({ content: 'Reading ' }),
      chunk({ content: 'them.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"path":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"a.txt"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{"path":"b.txt"}' } }] }),
      chunk({}, 'tool_calls'),
      { data: { ...HEAD, choices: [], usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 } } },
      { data: '[DONE]' },
    ]);
  });

  it('puts the terminal frames in the message-end output, so the gateway can commit first', () => {
    const outputs = encodeAll(REASONING_TEXT_TWO_TOOLS, false);
    expect(outputs.at(-1)).toMatch(/"finish_reason":"tool_calls".*\n\ndata: \[DONE\]\n\n$/s);
    expect(outputs.slice(0, -1).join('')).not.toContain('[DONE]');
  });

  it.each([
    [true, 5],
    [false, 4],
  ])('emits the usage chunk only when include_usage was asked (%s)', (includeUsage, frameCount) => {
    const frames = parseSseFrames(encodeAll(TRUNCATED_TEXT, includeUsage).join(''));
    expect(frames).toHaveLength(frameCount);
    expect(frames.some((frame) => JSON.stringify(frame).includes('"usage"'))).toBe(includeUsage);
    expect(frames.at(-2)).toMatchObject({ data: { choices: includeUsage ? [] : [{ finish_reason: 'length' }] } });
  });

  it.each([
    ['content-filter', null, 'content_filter'],
    ['other', 'abort', 'abort'],
    ['other', null, 'stop'],
  ] as const)('maps stop reason %s (raw %s) to finish_reason %s', (stopReason, raw, expected) => {
    const encoder = new OpenAIChatStreamEncoder(canonicalRequest('openai-chat'), { includeUsage: false });
    encoder.encode({ type: 'message-start', id: 'c', model: 'm', created: 0 });
    const frames = parseSseFrames(encoder.encode({ type: 'message-end', stopReason, rawFinishReason: raw, usage: { inputTokens: 0, outputTokens: 0 } }));
    expect(frames[0]).toMatchObject({ data: { choices: [{ finish_reason: expected }] } });
  });

  it('sends an error frame without [DONE] mid-stream and nothing afterwards', () => {
    const encoder = new OpenAIChatStreamEncoder(canonicalRequest('openai-chat'), { includeUsage: true });
    encoder.encode({ type: 'message-start', id: 'c', model: 'm', created: 0 });
    encoder.encode({ type: 'text-delta', text: 'par' });
    const text = encoder.error({ kind: 'upstream-unavailable', message: 'vLLM went away', status: 503 });
    expect(parseSseFrames(text)).toStrictEqual([
      { data: { error: { message: 'vLLM went away', type: 'server_error', param: null, code: null } } },
    ]);
    expect(encoder.encode({ type: 'text-delta', text: 'tial' })).toBe('');
    expect(encoder.error({ kind: 'internal', message: 'again', status: 500 })).toBe('');
  });

  it('opens the stream itself when the first event is not message-start, and skips empty deltas', () => {
    const encoder = new OpenAIChatStreamEncoder(canonicalRequest('openai-chat'), { includeUsage: false });
    const frames = parseSseFrames(encoder.encode({ type: 'text-delta', text: 'hi' }));
    expect(frames).toHaveLength(2);
    expect(frames[0]).toMatchObject({ data: { model: 'client-model', choices: [{ delta: { role: 'assistant' } }] } });
    expect(frames[1]).toMatchObject({ data: { choices: [{ delta: { content: 'hi' } }] } });
    expect(encoder.encode({ type: 'text-delta', text: '' })).toBe('');
    expect(encoder.encode({ type: 'tool-call-delta', index: 0, argumentsDelta: '' })).toBe('');
  });
});
