import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { CanonicalResponse } from '../../../src/providers/canonical.js';
import { renderOpenAIChatResponse } from '../../../src/providers/openai-chat/render-openai-chat-response.js';
import { READ_ARGS_A, READ_ARGS_B, REASONING_TEXT_TWO_TOOLS_RESPONSE } from './stream-scenarios.js';

describe('renderOpenAIChatResponse', () => {
  it('renders reasoning (both field names), text and tool calls as one chat.completion', () => {
    expect(renderOpenAIChatResponse(REASONING_TEXT_TWO_TOOLS_RESPONSE)).toStrictEqual({
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'qwen3-8b',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Reading them.',
            refusal: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'read', arguments: READ_ARGS_A } },
              { id: 'call_b', type: 'function', function: { name: 'read', arguments: READ_ARGS_B } },
            ],
            reasoning_content: 'Need both files.',
            reasoning: 'Need both files.',
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 },
    });
  });

  it('is assignable to the SDK types (finish_reason stays an open string for unknown upstream values)', () => {
    const rendered = renderOpenAIChatResponse(REASONING_TEXT_TWO_TOOLS_RESPONSE);
    const completion: Omit<OpenAI.Chat.ChatCompletion, 'choices'> = rendered;
    const message: OpenAI.Chat.ChatCompletionMessage | undefined = rendered.choices[0]?.message;
    expect([completion.object, message?.role]).toStrictEqual(['chat.completion', 'assistant']);
  });

  const plain = (content: CanonicalResponse['content'], stopReason: CanonicalResponse['stopReason'], raw: string | null) =>
    renderOpenAIChatResponse({ ...REASONING_TEXT_TWO_TOOLS_RESPONSE, content, stopReason, rawFinishReason: raw }).choices[0];

  it.each([
    ['no content at all', [], 'stop', null, { role: 'assistant', content: null, refusal: null }, 'stop'],
    ['text split in parts', [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], 'length', 'length', { role: 'assistant', content: 'ab', refusal: null }, 'length'],
    ['unknown upstream reason passes through', [{ type: 'text', text: 'x' }], 'other', 'abort', { role: 'assistant', content: 'x', refusal: null }, 'abort'],
    ['content filter', [], 'content-filter', 'content_filter', { role: 'assistant', content: null, refusal: null }, 'content_filter'],
  ] as const)('%s', (_name, content, stopReason, raw, message, finishReason) => {
    const choice = plain([...content], stopReason, raw);
    expect(choice?.message).toStrictEqual(message);
    expect(choice?.finish_reason).toBe(finishReason);
  });
});
