// The real openai SDK (v6) must parse every answer the chat adapter produces.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { openAIChatAdapter } from '../../../src/providers/openai-chat/openai-chat-adapter.js';
import { type AdapterServer, type Answer, serveAdapter } from '../../helpers/serve-adapter.js';
import { READ_ARGS_A, READ_ARGS_B, REASONING_TEXT_TWO_TOOLS, REASONING_TEXT_TWO_TOOLS_RESPONSE } from './stream-scenarios.js';

let server: AdapterServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(plan: Answer): Promise<OpenAI> {
  server = await serveAdapter(openAIChatAdapter, plan);
  return new OpenAI({ apiKey: 'polar-test', baseURL: server.baseURL, maxRetries: 0 });
}

const PARAMS = {
  model: 'client-model',
  messages: [
    { role: 'system' as const, content: 'Be brief.' },
    { role: 'user' as const, content: [{ type: 'text' as const, text: 'read a and b' }] },
  ],
  tools: [{ type: 'function' as const, function: { name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }],
};

describe('openai SDK against the chat adapter', () => {
  it('streams: chunks carry reasoning, text, both tool calls and the usage chunk', async () => {
    const client = await clientFor({ kind: 'stream', events: REASONING_TEXT_TWO_TOOLS });
    const stream = await client.chat.completions.create({ ...PARAMS, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let reasoning = '';
    const args: string[] = [];
    const finishReasons: (string | null)[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      usage = chunk.usage ?? usage;
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? '';
        reasoning += (choice.delta as { reasoning_content?: string }).reasoning_content ?? '';
        for (const call of choice.delta.tool_calls ?? []) args[call.index] = (args[call.index] ?? '') + (call.function?.arguments ?? '');
        finishReasons.push(choice.finish_reason);
      }
    }
    expect({ text, reasoning, args, usage, last: finishReasons.at(-1) }).toStrictEqual({
      text: 'Reading them.',
      reasoning: 'Need both files.',
      args: [READ_ARGS_A, READ_ARGS_B],
      usage: { prompt_tokens: 42, completion_tokens: 17, total_tokens: 59 },
      last: 'tool_calls',
    });
    expect(server?.requests[0]?.stream).toBe(true);
  });

  it('streams through the SDK accumulator (chat.completions.stream) to the same final message', async () => {
    const client = await clientFor({ kind: 'stream', events: REASONING_TEXT_TWO_TOOLS });
    const final = await client.chat.completions.stream({ ...PARAMS, stream: true }).finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe('Reading them.');
    expect(final.choices[0]?.message.tool_calls).toMatchObject([
      { id: 'call_a', type: 'function', function: { name: 'read', arguments: READ_ARGS_A } },
      { id: 'call_b', type: 'function', function: { name: 'read', arguments: READ_ARGS_B } },
    ]);
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('answers non-streaming requests with a chat.completion', async () => {
    const client = await clientFor({ kind: 'json', response: REASONING_TEXT_TWO_TOOLS_RESPONSE });
    const completion = await client.chat.completions.create(PARAMS);
    expect(completion.choices[0]?.message).toMatchObject({
      content: 'Reading them.',
      reasoning_content: 'Need both files.',
      tool_calls: [{ id: 'call_a' }, { id: 'call_b' }],
    });
    expect(completion.usage?.total_tokens).toBe(59);
  });

  it('surfaces a mid-stream error as an APIError after the text so far', async () => {
    const client = await clientFor({
      kind: 'stream',
      events: REASONING_TEXT_TWO_TOOLS.slice(0, 4),
      failWith: { kind: 'upstream-timeout', message: 'vLLM timed out after 600 s', status: 504 },
    });
    const stream = await client.chat.completions.create({ ...PARAMS, stream: true });
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OpenAI.APIError);
    expect(caught).toMatchObject({ message: 'vLLM timed out after 600 s', type: 'server_error' });
    expect(seen.join('')).toBe('Reading ');
  });

  it.each([
    ['context-overflow', 'prompt is 40000 tokens, the window is 32768', 400, 'context_length_exceeded'],
    ['authentication', 'unknown key', 401, 'invalid_api_key'],
  ] as const)('surfaces an HTTP error (%s) with its status and code', async (kind, message, status, code) => {
    const client = await clientFor({ kind: 'error', error: { kind, message, status } });
    const failure = client.chat.completions.create(PARAMS);
    await expect(failure).rejects.toBeInstanceOf(OpenAI.APIError);
    await expect(failure).rejects.toMatchObject({ status, code, message: `${status} ${message}` });
  });
});
