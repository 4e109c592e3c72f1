import { describe, expect, it } from 'vitest';
import { ChatStreamDecoder } from '../../src/upstream/chat-stream-decoder.js';
import { checkTokenCapture } from '../../src/capture/check-token-capture.js';
import type { ChatCompletionChunkWire } from '../../src/upstream/vllm-api-types.js';

function chunk(choice: Partial<ChatCompletionChunkWire['choices'][number]> | null, extra: Partial<ChatCompletionChunkWire> = {}): ChatCompletionChunkWire {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 7,
    model: 'm',
    choices: choice ? [{ index: 0, delta: {}, ...choice }] : [],
    ...extra,
  };
}

const lp = (...values: number[]) => ({ content: values.map((logprob) => ({ token: 'x', logprob })) });

describe('ChatStreamDecoder', () => {
  it('turns vLLM chunks into events and assembles the exact capture', () => {
    const decoder = new ChatStreamDecoder();
    const events = [
      ...decoder.push(chunk({ delta: { role: 'assistant', content: '' } }, { prompt_token_ids: [1, 2, 3] })),
      ...decoder.push(chunk({ delta: { reasoning: 'think' }, token_ids: [10, 11], logprobs: lp(-0.5, -0.25) })),
      ...decoder.push(chunk({ delta: { content: 'Hi' }, token_ids: [12], logprobs: lp(-1) })),
      ...decoder.push(chunk({ delta: { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'bash', arguments: '' } }] }, token_ids: [13], logprobs: lp(-0.125) })),
      ...decoder.push(chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"cmd":' } }] }, token_ids: [14], logprobs: lp(-0.1) })),
      ...decoder.push(chunk({ delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read', arguments: '{}' } }] }, token_ids: [15], logprobs: lp(-0.2) })),
      ...decoder.push(chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] }, token_ids: [16, 151645], logprobs: lp(-0.3, -0.01), finish_reason: 'tool_calls' })),
      ...decoder.push(chunk(null, { usage: { prompt_tokens: 3, completion_tokens: 8, total_tokens: 11 } })),
    ];
    expect(events.map((event) => event.type)).toEqual([
      'message-start', 'reasoning-delta', 'text-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-delta',
    ]);
    expect(events[0]).toMatchObject({ inputTokens: 3 });
    const capture = decoder.capture();
    expect(capture.promptTokenIds).toEqual([1, 2, 3]);
    expect(capture.tokenIds).toEqual([10, 11, 12, 13, 14, 15, 16, 151645]);
    expect(capture.logprobs).toEqual([-0.5, -0.25, -1, -0.125, -0.1, -0.2, -0.3, -0.01]);
    expect(checkTokenCapture(capture)).toEqual({ status: 'ok', error: null });
    expect(decoder.response().content).toEqual([
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: 'Hi' },
      { type: 'tool-call', id: 'call_a', name: 'bash', arguments: '{"cmd":"ls"}' },
      { type: 'tool-call', id: 'call_b', name: 'read', arguments: '{}' },
    ]);
    expect(decoder.endEvent()).toEqual({ type: 'message-end', stopReason: 'tool-calls', rawFinishReason: 'tool_calls', usage: { inputTokens: 3, outputTokens: 8 } });
  });

  it('reports missing token ids and misaligned logprobs instead of repairing them', () => {
    const missing = new ChatStreamDecoder();
    missing.push(chunk({ delta: { content: 'x' }, finish_reason: 'stop', logprobs: lp(-1) }));
    expect(missing.hasPromptTokenIds).toBe(false);
    expect(checkTokenCapture(missing.capture()).status).toBe('no_token_ids');

    const misaligned = new ChatStreamDecoder();
    misaligned.push(chunk({ delta: { content: 'x' }, token_ids: [5, 6], logprobs: lp(-1), finish_reason: 'stop' }, { prompt_token_ids: [1] }));
    const verdict = checkTokenCapture(misaligned.capture());
    expect(verdict.status).toBe('token_mismatch');
    expect(verdict.error).toContain('1 logprobs for 2 sampled tokens');
  });
});
