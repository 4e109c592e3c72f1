// Request modes over a real socket: thinking off, named and required tool choice, continuous usage, polar's own request shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/sim/policy.js';
import { parseSimRequest, type SimChatRequest } from '../../src/sim/sim-request.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import type { ChatCompletionRequestWire, ChatCompletionWire } from '../../src/upstream/vllm-api-types.js';
import { postJson, postStream } from './sim-test-client.js';

const seen: SimChatRequest[] = [];
const policy: Policy = (request, context) => {
  seen.push(request);
  expect(context.modelName).toBe('polar-sim-qwen3');
  return { reasoning: 'R', content: 'Answer.', toolCalls: [{ name: 'grep', arguments: { pattern: 'x', n: 3 } }] };
};
const tools = [{ type: 'function' as const, function: { name: 'grep', parameters: { type: 'object' } } }];
const wire: ChatCompletionRequestWire = {
  model: 'polar-sim-qwen3',
  messages: [
    { role: 'system', content: 'sys' },
    { role: 'user', content: [{ type: 'text', text: 'find x' }] },
  ],
  tools,
  stream: false,
  logprobs: true,
  return_token_ids: true,
  max_tokens: 200,
};

let server: SimServer;
let url: string;
beforeAll(async () => {
  server = await startSimServer({ policy });
  url = `${server.url}/chat/completions`;
});
afterAll(async () => {
  await server.close();
});

describe('request modes', () => {
  it('accepts polar\'s own upstream request shape (every ChatCompletionRequestWire is a SimChatRequest)', async () => {
    const typed: SimChatRequest = wire;
    expect(parseSimRequest(wire)).toEqual(typed);
    const { status } = await postJson(url, wire);
    expect(status).toBe(200);
    expect(seen.at(-1)?.messages).toEqual(wire.messages);
  });

  it('with enable_thinking false samples no think block and returns no reasoning', async () => {
    const { json } = await postJson(url, { ...wire, tools: undefined, chat_template_kwargs: { enable_thinking: false } });
    const body = json as ChatCompletionWire;
    expect(body.prompt_token_ids?.slice(-4)).toEqual([151667, 271, 151668, 271]);
    expect(body.choices[0]?.token_ids?.[0]).not.toBe(151667);
    expect(body.choices[0]?.message.reasoning).toBeNull();
    expect(body.choices[0]?.message.content).toMatch(/^Answer\.\n<tool_call>/);
  });

  it('named tool_choice: guided arguments, content "", finish_reason stop', async () => {
    const { json } = await postJson(url, { ...wire, tool_choice: { type: 'function', function: { name: 'grep' } } });
    const choice = (json as ChatCompletionWire).choices[0];
    expect(choice?.message.content).toBe('');
    expect(choice?.message.tool_calls?.[0]?.function).toEqual({ name: 'grep', arguments: '{"pattern": "x", "n": 3}' });
    expect(choice?.finish_reason).toBe('stop');
  });

  it('required tool_choice: finish_reason tool_calls, in both stream and JSON', async () => {
    const { json } = await postJson(url, { ...wire, tool_choice: 'required' });
    const choice = (json as ChatCompletionWire).choices[0];
    expect(choice?.message.tool_calls?.[0]?.function).toEqual({ name: 'grep', arguments: '{"pattern": "x", "n": 3}' });
    expect(choice?.finish_reason).toBe('tool_calls');
    const streamed = await postStream(url, { ...wire, tool_choice: 'required', stream: true });
    const calls = streamed.chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ index: 0, type: 'function', function: { name: 'grep' } });
    expect(calls.map((c) => c.function?.arguments ?? '').join('')).toBe('{"pattern": "x", "n": 3}');
    expect(streamed.chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('continuous_usage_stats puts running usage on every chunk', async () => {
    const streamed = await postStream(url, { ...wire, stream: true, stream_options: { include_usage: true, continuous_usage_stats: true } });
    const counts = streamed.chunks.map((c) => c.usage?.completion_tokens);
    expect(counts[0]).toBe(0);
    expect(counts.every((n) => typeof n === 'number')).toBe(true);
    expect(counts).toEqual([...counts].sort((a, b) => (a ?? 0) - (b ?? 0)));
    expect(streamed.chunks.at(-1)?.usage?.completion_tokens).toBe(streamed.chunks.slice(1, -1).flatMap((c) => c.choices[0]?.token_ids ?? []).length);
  });
});
