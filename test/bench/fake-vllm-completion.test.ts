// The fake upstream's canned answer must be something polar accepts as a complete, consistent
// capture (otherwise the benchmark would time polar's error path), streamed or not.
import { describe, expect, it } from 'vitest';
import { ChatStreamDecoder } from '../../src/upstream/chat-stream-decoder.js';
import { checkTokenCapture } from '../../src/capture/check-token-capture.js';
import { decodeChatCompletion } from '../../src/upstream/decode-chat-completion.js';
import { SseDataParser } from '../../src/upstream/sse-line-splitter.js';
import type { ChatCompletionChunkWire } from '../../src/upstream/vllm-api-types.js';
import { fakeChatCompletion, fakeChatCompletionChunks, fakeCompletionParts, fakeSseFrames, PROMPT_TOKENS } from './fake-vllm-completion.js';

describe('fake vLLM completion', () => {
  const parts = fakeCompletionParts();

  it('has ~1,500 prompt ids and 48 sampled tokens with one logprob entry each', () => {
    expect(parts.promptTokenIds).toHaveLength(PROMPT_TOKENS);
    expect(parts.tokenIds).toHaveLength(48);
    expect(parts.logprobs).toHaveLength(48);
    for (const [i, entry] of parts.logprobs.entries()) {
      expect(entry).toEqual({ token: parts.texts[i], logprob: expect.any(Number), bytes: [...Buffer.from(parts.texts[i] ?? '')], top_logprobs: [] });
      expect(entry.logprob).toBeLessThan(0);
      expect(Math.fround(entry.logprob)).toBe(entry.logprob);
    }
    expect(new Set(parts.promptTokenIds).size).toBeGreaterThan(1400);
  });

  it('decodes as an ok capture when not streamed', () => {
    const decoded = decodeChatCompletion(fakeChatCompletion(parts));
    expect(checkTokenCapture(decoded.capture)).toEqual({ status: 'ok', error: null });
    expect(decoded.capture.finishReason).toBe('stop');
    expect(decoded.response.content).toEqual([{ type: 'text', text: parts.texts.join('') }]);
  });

  it('streams role + prompt ids, one chunk per token, finish, usage, [DONE]', () => {
    const chunks = fakeChatCompletionChunks(parts);
    expect(chunks).toHaveLength(1 + 48 + 2);
    expect(chunks[0]?.prompt_token_ids).toEqual(parts.promptTokenIds);
    expect(chunks[49]?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks[50]).toMatchObject({ choices: [], usage: parts.usage });
    expect(fakeSseFrames(chunks).at(-1)?.toString()).toBe('data: [DONE]\n\n');
  });

  it('streams into the same ok capture as the JSON answer, through polar own SSE parser', () => {
    const parser = new SseDataParser();
    const decoder = new ChatStreamDecoder();
    let text = '';
    for (const frame of fakeSseFrames()) {
      for (const data of parser.push(frame)) {
        if (data === '[DONE]') continue;
        for (const event of decoder.push(JSON.parse(data) as ChatCompletionChunkWire)) {
          if (event.type === 'text-delta') text += event.text;
        }
      }
    }
    expect(checkTokenCapture(decoder.capture())).toEqual({ status: 'ok', error: null });
    expect(decoder.capture()).toEqual(decodeChatCompletion(fakeChatCompletion()).capture);
    expect(text).toBe(parts.texts.join(''));
  });
});
