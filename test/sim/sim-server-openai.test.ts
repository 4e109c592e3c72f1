// The official openai SDK as a client of the simulator: shapes parse, vLLM extras are there, streams accumulate.
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';

/** vLLM request extensions, sent as top-level body fields. */
interface VllmExtras {
  return_token_ids: boolean;
}
/** vLLM response extensions the SDK types do not know about. */
interface VllmCompletionExtras {
  prompt_token_ids?: number[] | null;
  choices: (ChatCompletion.Choice & { token_ids?: number[] | null; stop_reason?: string | number | null; message: { reasoning?: string | null } })[];
}
type VllmChunk = ChatCompletionChunk & {
  prompt_token_ids?: number[] | null;
  choices: (ChatCompletionChunk.Choice & { token_ids?: number[] | null; delta: { reasoning?: string | null } })[];
};

const tools: ChatCompletionTool[] = [
  { type: 'function', function: { name: 'edit', description: 'Edit a file.', parameters: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } } } } },
];
const messages: ChatCompletionCreateParamsNonStreaming['messages'] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: [{ type: 'text', text: 'Edit the file.' }] },
];

let server: SimServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startSimServer({
    policy: scriptedPolicy({ turns: [{ reasoning: 'Edit it.', toolCalls: [{ name: 'edit', arguments: { path: 'a.py', text: 'x = "ü"\n' } }] }] }),
    chunkTokens: 2,
  });
  client = new OpenAI({ apiKey: 'sk-sim', baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

describe('openai SDK against the simulator', () => {
  it('parses a non-streaming completion with tool calls and vLLM extras', async () => {
    const params: ChatCompletionCreateParamsNonStreaming & VllmExtras = {
      model: 'polar-sim-qwen3',
      messages,
      tools,
      logprobs: true,
      return_token_ids: true,
    };
    const completion = (await client.chat.completions.create(params)) as ChatCompletion & VllmCompletionExtras;
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const call = choice?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type !== 'function') throw new Error('expected a function tool call');
    expect(call.function.name).toBe('edit');
    expect(JSON.parse(call.function.arguments)).toEqual({ path: 'a.py', text: 'x = "ü"\n' });
    expect(choice?.message.reasoning).toBe('\nEdit it.\n');
    expect(choice?.token_ids?.length).toBe(completion.usage?.completion_tokens);
    expect(choice?.logprobs?.content?.length).toBe(completion.usage?.completion_tokens);
    expect(completion.prompt_token_ids?.length).toBe(completion.usage?.prompt_tokens);
  });

  it('streams chunks the SDK parses into the same ids, reasoning and call', async () => {
    const params: ChatCompletionCreateParamsStreaming & VllmExtras = {
      model: 'polar-sim-qwen3',
      messages,
      tools,
      logprobs: true,
      return_token_ids: true,
      stream: true,
      stream_options: { include_usage: true },
    };
    const full = (await client.chat.completions.create({ ...params, stream: false })) as ChatCompletion & VllmCompletionExtras;
    const stream = await client.chat.completions.create(params);
    const ids: number[] = [];
    let reasoning = '';
    let name = '';
    let args = '';
    let finish: string | null | undefined;
    let promptIds: number[] | null | undefined;
    let completionTokens: number | undefined;
    for await (const raw of stream) {
      const chunk = raw as VllmChunk;
      promptIds ??= chunk.prompt_token_ids;
      if (chunk.usage) completionTokens = chunk.usage.completion_tokens;
      const choice = chunk.choices[0];
      if (!choice) continue;
      ids.push(...(choice.token_ids ?? []));
      reasoning += choice.delta.reasoning ?? '';
      for (const call of choice.delta.tool_calls ?? []) {
        name += call.function?.name ?? '';
        args += call.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(ids).toEqual(full.choices[0]?.token_ids);
    expect(promptIds).toEqual(full.prompt_token_ids);
    expect(reasoning).toBe(full.choices[0]?.message.reasoning);
    expect(name).toBe('edit');
    const fullCall = full.choices[0]?.message.tool_calls?.[0];
    expect(args).toBe(fullCall?.type === 'function' ? fullCall.function.arguments : undefined);
    expect(finish).toBe('tool_calls');
    expect(completionTokens).toBe(ids.length);
  });

  it('surfaces vLLM errors as the SDK\'s typed errors', async () => {
    const error = await client.chat.completions.create({ model: 'other-model', messages }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).message).toContain('The model `other-model` does not exist.');
  });
});
