// The simulator's SGLang mode over a real socket: the routes and answer shapes of an SGLang server (chat
// with ids on non-streaming answers only, /generate, the info endpoints) and its version flaws as options.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SglangChatCompletionWire, SglangGenerateWire } from '../../src/upstream/engines/sglang-api-types.js';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import type { PolicyTurn } from '../../src/sim/policy.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import { postJson, postStream } from './sim-test-client.js';

const TOOLS = [{ type: 'function', function: { name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } } }];
const TURNS: PolicyTurn[] = [{ reasoning: 'Look first.', toolCalls: [{ name: 'bash', arguments: { cmd: 'ls' } }] }];
const BASE = { model: 'polar-sim-qwen3', messages: [{ role: 'system', content: 'You fix bugs.' }, { role: 'user', content: 'Fix it.' }], tools: TOOLS, logprobs: true };

const servers: SimServer[] = [];
async function start(options: Partial<SimServerOptions> = {}): Promise<{ url: string; root: string }> {
  const server = await startSimServer({ policy: scriptedPolicy({ turns: TURNS, final: { reasoning: 'Done.', content: 'Fixed.' } }), engine: 'sglang', ...options });
  servers.push(server);
  return { url: server.url, root: server.url.replace(/\/v1$/, '') };
}
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

let url: string;
let root: string;
beforeAll(async () => {
  ({ url, root } = await start());
});

describe('SGLang-shaped chat completions', () => {
  it('non-streaming with return_token_ids: per-choice prompt and sampled ids, reasoning_content, call_ ids, matched_stop', async () => {
    const { status, json } = await postJson(`${url}/chat/completions`, { ...BASE, return_token_ids: true });
    expect(status).toBe(200);
    const body = json as SglangChatCompletionWire & { prompt_token_ids?: unknown };
    const choice = body.choices[0]!;
    expect(body.prompt_token_ids).toBeUndefined();
    expect(choice.prompt_token_ids?.slice(0, 3)).toEqual([151644, 8948, 198]);
    expect(choice.token_ids?.at(-1)).toBe(151645);
    expect(choice.logprobs?.content).toHaveLength(choice.token_ids!.length);
    expect(choice.message).toMatchObject({ role: 'assistant', reasoning_content: '\nLook first.\n' });
    expect(choice.message).not.toHaveProperty('reasoning');
    expect(choice.message.tool_calls?.[0]).toMatchObject({ id: expect.stringMatching(/^call_[0-9a-f]{24}$/), index: 0, type: 'function', function: { name: 'bash', arguments: '{"cmd": "ls"}' } });
    expect(choice).toMatchObject({ finish_reason: 'tool_calls', matched_stop: null });
    expect(choice).not.toHaveProperty('stop_reason');
    expect(body.usage).toMatchObject({ prompt_tokens: choice.prompt_token_ids!.length, completion_tokens: choice.token_ids!.length });
    expect(body.metadata).toEqual({ weight_version: 'default' });
  });

  it('a text answer stops on <|im_end|>: matched_stop names the token id; no ids unless asked', async () => {
    const messages = [...BASE.messages, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'bash', arguments: '{"cmd":"ls"}' } }] }, { role: 'tool', tool_call_id: 'c', content: 'a.py' }];
    const { json } = await postJson(`${url}/chat/completions`, { ...BASE, messages });
    const choice = (json as SglangChatCompletionWire).choices[0]!;
    expect(choice).toMatchObject({ finish_reason: 'stop', matched_stop: 151645, message: { content: '\n\nFixed.', tool_calls: null } });
    expect(choice).not.toHaveProperty('token_ids');
    expect(choice).not.toHaveProperty('prompt_token_ids');
  });

  it('streaming with return_token_ids is refused (400, SGLang error shape); without ids it streams no id fields', async () => {
    const refused = await postJson(`${url}/chat/completions`, { ...BASE, return_token_ids: true, stream: true });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ object: 'error', message: expect.stringContaining('return_token_ids is not supported with streaming'), type: 'BadRequest', param: null, code: 400 });
    const { status, chunks, done } = await postStream(`${url}/chat/completions`, { ...BASE, stream: true, stream_options: { include_usage: true } });
    expect(status).toBe(200);
    expect(done).toBe(true);
    expect(JSON.stringify(chunks)).not.toMatch(/token_ids|"reasoning"/);
    expect(chunks.some((chunk) => typeof chunk.choices[0]?.delta.reasoning_content === 'string')).toBe(true);
    const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason);
    expect(finish?.choices[0]).toMatchObject({ finish_reason: 'tool_calls', matched_stop: 151645 });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: expect.any(Number) } });
  });

  it('an SGLang release before PR #30917 ignores return_token_ids (return_prompt_token_ids still answers the prompt)', async () => {
    const old = await start({ returnTokenIds: false });
    const { json } = await postJson(`${old.url}/chat/completions`, { ...BASE, return_token_ids: true, return_prompt_token_ids: true });
    const choice = (json as SglangChatCompletionWire).choices[0]!;
    expect(choice.prompt_token_ids?.length).toBeGreaterThan(100);
    expect(choice).not.toHaveProperty('token_ids');
    const streamed = await postStream(`${old.url}/chat/completions`, { ...BASE, return_token_ids: true, stream: true });
    expect(streamed.status).toBe(200);
    const info = (await (await fetch(`${old.root}/get_server_info`)).json()) as { version: string };
    expect(info.version).toBe('0.5.13-polar-sim');
  });

  it('without --tool-call-parser and --reasoning-parser the text stays in content', async () => {
    const bare = await start({ toolCalling: false, sglang: { reasoningParser: false } });
    const { json } = await postJson(`${bare.url}/chat/completions`, BASE);
    const choice = (json as SglangChatCompletionWire).choices[0]!;
    expect(choice.message.content).toMatch(/^<think>\nLook first\.\n<\/think>\n\n<tool_call>/);
    expect(choice.message).toMatchObject({ reasoning_content: null, tool_calls: null });
    expect(choice.finish_reason).toBe('stop');
    const info = (await (await fetch(`${bare.root}/get_server_info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ tool_call_parser: null, reasoning_parser: null });
  });

  it('context overflow answers SGLang\'s wording', async () => {
    const small = await start({ maxModelLen: 64 });
    const { status, json } = await postJson(`${small.url}/chat/completions`, BASE);
    expect(status).toBe(400);
    expect((json as { message: string }).message).toMatch(/^The input \(\d+ tokens\) is longer than the model's context length \(64 tokens\)\.$/);
  });
});

describe('SGLang native /generate', () => {
  const prompt = async (): Promise<number[]> => {
    const { json } = await postJson(`${root}/tokenize`, { model: BASE.model, messages: BASE.messages, tools: TOOLS, add_generation_prompt: true });
    return (json as { tokens: number[] }).tokens;
  };

  it('input_ids + return_logprob: output_ids, meta_info with [logprob, id, null] entries and the finish reason', async () => {
    const inputIds = await prompt();
    const { status, json } = await postJson(`${root}/generate`, { input_ids: inputIds, sampling_params: { max_new_tokens: 512, temperature: 1 }, return_logprob: true, logprob_start_len: -1 });
    expect(status).toBe(200);
    const answer = json as SglangGenerateWire;
    expect(answer.text).toContain('<tool_call>');
    expect(answer.output_ids?.at(-1)).toBe(151645);
    expect(answer.meta_info).toMatchObject({ prompt_tokens: inputIds.length, completion_tokens: answer.output_ids!.length, cached_tokens: 0, weight_version: 'default', finish_reason: { type: 'stop', matched: 151645 } });
    expect(answer.meta_info.output_token_logprobs?.map((entry) => entry[1])).toEqual(answer.output_ids);
    expect(answer.meta_info.output_token_logprobs?.every((entry) => entry[2] === null && typeof entry[0] === 'number')).toBe(true);
  });

  it('max_new_tokens defaults to 128 and cuts with finish_reason length; streaming sends cumulative chunks', async () => {
    const inputIds = await prompt();
    const cut = (await postJson(`${root}/generate`, { input_ids: inputIds, sampling_params: { max_new_tokens: 5 } })).json as SglangGenerateWire;
    expect(cut.meta_info.finish_reason).toEqual({ type: 'length', length: 5 });
    expect(cut.output_ids).toHaveLength(5);
    expect(cut.meta_info).not.toHaveProperty('output_token_logprobs');
    const response = await fetch(`${root}/generate`, { method: 'POST', body: JSON.stringify({ text: 'Hello', sampling_params: { max_new_tokens: 6 }, return_logprob: true, stream: true }) });
    const payloads = (await response.text()).split('\n\n').filter((event) => event !== '').map((event) => event.slice('data: '.length));
    expect(payloads.at(-1)).toBe('[DONE]');
    const chunks = payloads.slice(0, -1).map((payload) => JSON.parse(payload) as SglangGenerateWire);
    expect(chunks.map((chunk) => chunk.output_ids?.length)).toEqual(chunks.map((_, i) => i + 1));
    expect(chunks.at(-1)?.meta_info.finish_reason).not.toBeNull();
    expect(chunks[0]?.meta_info.finish_reason).toBeNull();
  });
});

describe('SGLang info routes', () => {
  it('/get_server_info, /get_model_info, /v1/models, /health, /flush_cache answer; /version is vLLM\'s and 404s', async () => {
    const info = (await (await fetch(`${root}/get_server_info`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ version: '0.5.19-polar-sim', context_length: 32768, tool_call_parser: 'qwen25', reasoning_parser: 'qwen3', max_total_num_tokens: expect.any(Number), served_model_name: 'polar-sim-qwen3' });
    expect(await (await fetch(`${root}/get_model_info`)).json()).toMatchObject({ model_path: 'polar-sim-qwen3', is_generation: true });
    expect(await (await fetch(`${url}/models`)).json()).toMatchObject({ object: 'list', data: [{ id: 'polar-sim-qwen3', owned_by: 'sglang', max_model_len: 32768 }] });
    expect((await fetch(`${root}/health`)).status).toBe(200);
    expect((await fetch(`${root}/flush_cache`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${root}/version`)).status).toBe(404);
    expect((await fetch(`${root}/workers`)).status).toBe(404);
  });

  it('an older /tokenize takes text only; the router mode lists its workers', async () => {
    const old = await start({ sglang: { tokenizeMessages: false, routerWorkers: 3, unhealthyWorkers: 1 } });
    expect((await postJson(`${old.root}/tokenize`, { messages: BASE.messages })).status).toBe(400);
    expect((await postJson(`${old.root}/tokenize`, { prompt: '<|im_end|>', add_special_tokens: false })).json).toMatchObject({ tokens: [151645], count: 1 });
    const workers = (await (await fetch(`${old.root}/workers`)).json()) as { workers: { url: string; is_healthy: boolean }[] };
    expect(workers.workers.map((worker) => worker.is_healthy)).toEqual([false, true, true]);
    expect(await (await fetch(`${old.root}/list_workers`)).json()).toEqual({ urls: workers.workers.map((worker) => worker.url) });
  });
});
