// The token-in adapter: /v1/completions answers become the vLLM chat shapes the relays read, streamed or not.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { completionToChat, CompletionStreamToChat, type CompletionWire } from '../../../src/upstream/engines/completion-to-chat.js';
import type { ParseOptions, ToolFormat } from '../../../src/model-format/format-types.js';
import { decodeChatCompletion } from '../../../src/upstream/decode-chat-completion.js';
import { ChatStreamDecoder } from '../../../src/upstream/chat-stream-decoder.js';
import type { ChatCompletionChunkWire } from '../../../src/upstream/vllm-api-types.js';

const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'integer' } } } } }];
const SAMPLED: Record<ToolFormat, string> = {
  hermes: '<think>\nLook at it.\n</think>\n\nLet me look.\n<tool_call>\n{"name":"bash","arguments":{"command":"ls ü","timeout":30}}\n</tool_call>',
  qwen3_coder: '<think>\nLook at it.\n</think>\n\nLet me look.\n<tool_call>\n<function=bash>\n<parameter=command>\nls ü\n</parameter>\n<parameter=timeout>\n30\n</parameter>\n</function>\n</tool_call>',
};

/**
 * The sampled text cut into `size`-character pieces, one token id per piece (the last one the EOS, with
 * no text); the think and tool-call tags stay whole, as they are single special tokens in Qwen's vocabulary.
 */
function completion(text: string, size: number): { pieces: string[]; ids: number[]; body: CompletionWire } {
  const pieces: string[] = [];
  for (const segment of text.split(/(<\/?think>|<\/?tool_call>)/).filter((part) => part !== '')) {
    if (segment.startsWith('<') && segment.endsWith('>') && !segment.includes('\n')) pieces.push(segment);
    else for (let at = 0; at < segment.length; at += size) pieces.push(segment.slice(at, at + size));
  }
  pieces.push('');
  const ids = pieces.map((_, i) => (i === pieces.length - 1 ? 151645 : 1000 + i));
  const body: CompletionWire = {
    id: 'cmpl-1',
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        text: pieces.join(''),
        logprobs: { tokens: pieces, token_logprobs: ids.map((_, i) => -(i + 1) / 10), top_logprobs: ids.map(() => null) },
        finish_reason: 'stop',
        stop_reason: null,
        token_ids: ids,
        prompt_token_ids: [1, 2, 3],
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: ids.length, total_tokens: 3 + ids.length },
  };
  return { pieces, ids, body };
}

function sse(body: CompletionWire, pieces: string[], ids: number[]): string {
  const choice = body.choices[0]!;
  const frames = pieces.map((text, i) => ({
    id: body.id,
    created: 1,
    model: 'm',
    choices: [
      {
        index: 0,
        text,
        logprobs: { tokens: [text], token_logprobs: [choice.logprobs!.token_logprobs[i]], top_logprobs: [null] },
        finish_reason: i === pieces.length - 1 ? 'stop' : null,
        stop_reason: null,
        token_ids: [ids[i]],
        ...(i === 0 ? { prompt_token_ids: [1, 2, 3] } : {}),
      },
    ],
  }));
  return [...frames.map((frame) => `data: ${JSON.stringify(frame)}\n\n`), `data: ${JSON.stringify({ id: body.id, created: 1, model: 'm', choices: [], usage: body.usage })}\n\n`, 'data: [DONE]\n\n'].join('');
}

async function convertStream(text: string, options: ParseOptions, byteChunk: number): Promise<string> {
  const bytes = Buffer.from(text);
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += byteChunk) parts.push(bytes.subarray(at, at + byteChunk));
  const out: string[] = [];
  for await (const chunk of Readable.from(parts).pipe(new CompletionStreamToChat(options))) out.push(String(chunk));
  return out.join('');
}

describe('completion -> chat adapter', () => {
  it.each(['hermes', 'qwen3_coder'] as const)('%s: streamed and whole answers decode to the same turn and capture, for any chunking', async (toolFormat) => {
    const options: ParseOptions = { thinking: true, toolMode: { kind: 'auto' }, toolFormat, tools };
    for (const size of [1, 3, 7, 1000]) {
      const { pieces, ids, body } = completion(SAMPLED[toolFormat], size);
      const whole = decodeChatCompletion(completionToChat(body, options));
      expect(whole.response.rawFinishReason).toBe('tool_calls');
      expect(whole.response.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call']);
      const call = whole.response.content[2] as { name: string; arguments: string };
      expect([call.name, JSON.parse(call.arguments)]).toEqual(['bash', { command: 'ls ü', timeout: 30 }]);
      expect(whole.capture).toMatchObject({ promptTokenIds: [1, 2, 3], tokenIds: ids, logprobs: ids.map((_, i) => -(i + 1) / 10) });

      for (const byteChunk of [5, 64, 100_000]) {
        const text = await convertStream(sse(body, pieces, ids), options, byteChunk);
        const frames = text.split('\n\n').filter((frame) => frame.startsWith('data: ')).map((frame) => frame.slice(6));
        expect(frames.at(-1)).toBe('[DONE]');
        const decoder = new ChatStreamDecoder();
        for (const frame of frames.slice(0, -1)) decoder.push(JSON.parse(frame) as ChatCompletionChunkWire);
        const streamed = decoder.response();
        expect(streamed.rawFinishReason).toBe('tool_calls');
        // Streamed tool-call arguments are the model's own text, whole ones re-dumped (as vLLM does): compare them parsed.
        const strip = (parts: typeof streamed.content) =>
          parts.map((part) => (part.type === 'tool-call' ? { ...part, id: '', arguments: JSON.parse(part.arguments) as unknown } : part));
        expect(strip(streamed.content)).toEqual(strip(whole.response.content));
        expect(decoder.capture()).toEqual(whole.capture);
      }
    }
  });

  it('a plain answer without tools stops with stop; an error frame passes through for the relay to report', async () => {
    const options: ParseOptions = { thinking: true, toolMode: { kind: 'none' } };
    const { body } = completion('<think>\nHm.\n</think>\n\nHello.', 4);
    const chat = completionToChat(body, options);
    expect(chat.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: '\n\nHello.', reasoning: '\nHm.\n' } });
    const error = 'data: {"error":{"message":"boom"}}\n\n';
    expect(await convertStream(error, options, 7)).toBe(error);
  });
});
