// The SGLang adapter's request and answer mapping, on answers constructed from SGLang's source shapes
// (serving_chat.py @ 002897c2 + PR #30917; /generate meta_info): nothing is filled in that was not sent.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { decodeChatCompletion } from '../../../src/upstream/decode-chat-completion.js';
import { engineFor } from '../../../src/upstream/engines/engine-for.js';
import type { TokenInCall } from '../../../src/upstream/engines/engine.js';
import { generateRequest, generateToChat } from '../../../src/upstream/engines/generate-to-chat.js';
import { readSglangChat } from '../../../src/upstream/engines/read-sglang-chat.js';
import type { SglangChatCompletionWire, SglangGenerateWire } from '../../../src/upstream/engines/sglang-api-types.js';
import type { UpstreamClient, UpstreamResponse } from '../../../src/upstream/upstream-client.js';
import type { ChatCompletionRequestWire } from '../../../src/upstream/vllm-api-types.js';

const chatAnswer = (choice: Partial<SglangChatCompletionWire['choices'][number]>): SglangChatCompletionWire => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 5,
  model: 'qwen',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: '', reasoning_content: 'think', tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'bash', arguments: '{"cmd": "ls"}' } }] },
      logprobs: { content: [{ token: 'a', logprob: -0.5 }, { token: 'b', logprob: -0.25 }] },
      finish_reason: 'tool_calls',
      matched_stop: null,
      ...choice,
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  metadata: { weight_version: 'v7' },
});

describe('readSglangChat', () => {
  it('moves the per-choice prompt ids to the top and decodes into the capture', () => {
    const decoded = decodeChatCompletion(readSglangChat(chatAnswer({ prompt_token_ids: [1, 2, 3], token_ids: [9, 151645] })));
    expect(decoded.capture).toEqual({ promptTokenIds: [1, 2, 3], tokenIds: [9, 151645], logprobs: [-0.5, -0.25], finishReason: 'tool_calls', stopReason: null, promptTokens: 3, completionTokens: 2 });
    expect(decoded.response.content).toEqual([
      { type: 'reasoning', text: 'think' },
      { type: 'tool-call', id: 'call_abc', name: 'bash', arguments: '{"cmd": "ls"}' },
    ]);
    expect(decoded.response.stopReason).toBe('tool-calls');
  });

  it('matched_stop becomes stop_reason (a stop string, or the stop token id SGLang names)', () => {
    expect(readSglangChat(chatAnswer({ finish_reason: 'stop', matched_stop: 151645 })).choices[0]?.stop_reason).toBe(151645);
    expect(readSglangChat(chatAnswer({ finish_reason: 'stop', matched_stop: '</done>' })).choices[0]?.stop_reason).toBe('</done>');
  });

  it('an answer without ids (SGLang before PR #30917) stays without ids', () => {
    const decoded = decodeChatCompletion(readSglangChat(chatAnswer({})));
    expect(decoded.capture).toMatchObject({ promptTokenIds: null, tokenIds: null });
  });

  it('throws for a body that is not a chat completion', () => {
    expect(() => readSglangChat({ object: 'error', message: 'x' })).toThrow(/no choices/);
  });
});

const chatBody: ChatCompletionRequestWire = {
  model: 'qwen',
  messages: [{ role: 'user', content: 'hi' }],
  tools: [{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } } }],
  temperature: 0.7,
  top_p: 1,
  top_k: -1,
  min_p: 0,
  stop: ['</x>'],
  seed: 11,
  stream: true,
  logprobs: true,
  return_token_ids: true,
};

describe('generateRequest', () => {
  it('carries the run sampling as sampling_params, the rest of the context as max_new_tokens, logprobs of the output only', () => {
    expect(generateRequest(chatBody, [1, 2, 3], 100)).toEqual({
      input_ids: [1, 2, 3],
      sampling_params: { max_new_tokens: 97, temperature: 0.7, top_p: 1, top_k: -1, min_p: 0, stop: ['</x>'], presence_penalty: undefined, frequency_penalty: undefined, skip_special_tokens: undefined, sampling_seed: 11 },
      return_logprob: true,
      logprob_start_len: -1,
      stream: true,
    });
    expect(generateRequest({ ...chatBody, stream: false }, [1], 100).stream).toBe(false);
    expect(generateRequest({ ...chatBody, max_tokens: 8, seed: undefined }, [1], 100).sampling_params).toMatchObject({ max_new_tokens: 8 });
    expect(generateRequest({ ...chatBody, seed: undefined }, [1], 100).sampling_params).not.toHaveProperty('sampling_seed');
  });
});

const generated: SglangGenerateWire = {
  text: '<think>\nok\n</think>\n\n<tool_call>\n{"name": "bash", "arguments": {"cmd": "ls"}}\n</tool_call>',
  output_ids: [10, 11, 151645],
  meta_info: {
    id: 'abc',
    finish_reason: { type: 'stop', matched: 151645 },
    prompt_tokens: 4,
    completion_tokens: 3,
    cached_tokens: 2,
    weight_version: 'v7',
    output_token_logprobs: [[-0.1, 10, null], [-0.2, 11, null], [null, 151645, null]],
  },
};
const parse = { thinking: true, toolMode: { kind: 'auto' } as const, toolFormat: 'hermes' as const, tools: chatBody.tools ?? null };

describe('generateToChat', () => {
  it('answers as SGLang chat would: parsed turn, tool_calls finish, the sent prompt ids, the sampled ids and logprobs', () => {
    const chat = generateToChat(generated, [1, 2, 3, 4], 'qwen', parse);
    const decoded = decodeChatCompletion(readSglangChat(chat));
    expect(decoded.capture).toEqual({ promptTokenIds: [1, 2, 3, 4], tokenIds: [10, 11, 151645], logprobs: [-0.1, -0.2, -9999], finishReason: 'tool_calls', stopReason: null, promptTokens: 4, completionTokens: 3 });
    expect(decoded.response.content).toEqual([
      { type: 'reasoning', text: '\nok\n' },
      { type: 'text', text: '\n\n' },
      { type: 'tool-call', id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'bash', arguments: '{"cmd": "ls"}' },
    ]);
    expect(chat.metadata).toEqual({ weight_version: 'v7' });
    expect(chat.usage).toMatchObject({ prompt_tokens_details: { cached_tokens: 2 } });
  });

  it('a cut answer keeps finish length; ids come from the logprob entries when output_ids is absent', () => {
    const cut: SglangGenerateWire = { text: '<think>\nhm', meta_info: { ...generated.meta_info, finish_reason: { type: 'length', length: 2 }, completion_tokens: 2, output_token_logprobs: [[-1, 5, null], [-2, 6, null]] } };
    const choice = generateToChat(cut, [1], 'qwen', parse).choices[0]!;
    expect(choice).toMatchObject({ finish_reason: 'length', matched_stop: null, token_ids: [5, 6] });
  });

  it('throws for an answer without meta_info', () => {
    expect(() => generateToChat({ error: { message: 'x' } } as unknown as SglangGenerateWire, [1], 'qwen', parse)).toThrow(/meta_info/);
  });
});

describe('the SGLang engine adapter', () => {
  const sglang = engineFor('sglang');

  it('never streams chat upstream and reads answers with readSglangChat', () => {
    expect(sglang.streamsChatTokenIds).toBe(false);
    expect(engineFor('vllm').streamsChatTokenIds).toBe(true);
    expect(sglang.noTokenIdsMessage).toContain('PR #30917');
  });

  it('sends non-streaming token-in calls to /generate and answers in SGLang chat shape (non-200 answers pass unchanged)', async () => {
    const call: TokenInCall = { chat: { ...chatBody, stream: false }, promptIds: [1, 2, 3, 4], maxModelLen: 100, parse };
    const body = sglang.tokenInBody(call);
    expect(JSON.parse(body.toString('utf8'))).toMatchObject({ input_ids: [1, 2, 3, 4], stream: false });
    const sent: Buffer[] = [];
    const answering = (status: number, payload: unknown): UpstreamClient =>
      ({
        generate: async (b: Buffer): Promise<UpstreamResponse> => {
          sent.push(b);
          return { status, body: Readable.from([Buffer.from(JSON.stringify(payload))]) as unknown as IncomingMessage, timedOut: () => false };
        },
      }) as unknown as UpstreamClient;
    const ok = await sglang.sendTokenIn(answering(200, generated), call, body, AbortSignal.timeout(5000), 'text/event-stream');
    const text = await new Response(Readable.toWeb(ok.body) as ReadableStream).text();
    expect(readSglangChat(JSON.parse(text)).prompt_token_ids).toEqual([1, 2, 3, 4]);
    expect(sent[0]).toBe(body);
    const refused = await sglang.sendTokenIn(answering(400, { error: { message: 'bad' } }), call, body, AbortSignal.timeout(5000), 'application/json');
    expect(refused.status).toBe(400);
  });
});
