// The canned answer of the benchmark upstream at /v1/messages: the same 48 tokens as the vLLM answer,
// as an Anthropic Messages server would send them (JSON, or the SSE event sequence). It is what a
// client of the Anthropic path would get from a native server: the "direct" and "floor" targets.
import { fakeCompletionParts, FAKE_MODEL } from './fake-vllm-completion.js';

const MESSAGE_ID = 'msg_bench00000000000000000000';

export function fakeAnthropicMessage(promptTokens: number): Record<string, unknown> {
  const parts = fakeCompletionParts(promptTokens);
  return {
    id: MESSAGE_ID,
    type: 'message',
    role: 'assistant',
    model: FAKE_MODEL,
    content: [{ type: 'text', text: parts.texts.join('') }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: promptTokens, output_tokens: parts.tokenIds.length },
  };
}

function event(name: string, data: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** message_start, one text block with a delta per token, message_delta, message_stop. */
export function fakeAnthropicSseFrames(promptTokens: number): Buffer[] {
  const parts = fakeCompletionParts(promptTokens);
  const start = { ...fakeAnthropicMessage(promptTokens), content: [], stop_reason: null, usage: { input_tokens: promptTokens, output_tokens: 1 } };
  return [
    event('message_start', { type: 'message_start', message: start }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...parts.texts.map((text) => event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: parts.tokenIds.length } }),
    event('message_stop', { type: 'message_stop' }),
  ];
}
