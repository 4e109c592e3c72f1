// The simulator over a real socket: vLLM response shapes, stream/non-stream parity, errors, tokenize, disconnects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { decodeTokens } from '../../src/sim/qwen-tokenizer.js';
import type { PolicyTurn } from '../../src/sim/policy.js';
import { SIM_VERSION, startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import type { ChatCompletionChunkWire, ChatCompletionWire, ErrorResponseWire } from '../../src/upstream/vllm-api-types.js';
import { postJson, postStream } from './sim-test-client.js';

const TOOLS = [
  { type: 'function', function: { name: 'bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } } },
];
const TURNS: PolicyTurn[] = [
  { reasoning: 'Look first.', content: 'Checking.', toolCalls: [{ name: 'bash', arguments: { cmd: 'ls -la é' } }] },
  { reasoning: 'Done.', content: 'Fixed: 漢字 🙂' },
  { error: { status: 503, message: 'Simulated overload.' } },
];
const BASE = {
  model: 'polar-sim-qwen3',
  messages: [
    { role: 'system', content: 'You fix bugs.' },
    { role: 'user', content: 'Fix it.' },
  ],
  tools: TOOLS,
  logprobs: true,
  return_token_ids: true,
};

let server: SimServer;
let chatUrl: string;
let root: string;

beforeAll(async () => {
  server = await startSimServer({ policy: scriptedPolicy({ turns: TURNS }) });
  chatUrl = `${server.url}/chat/completions`;
  root = server.url.replace(/\/v1$/, '');
});
afterAll(async () => {
  await server.close();
});

function concatIds(chunks: ChatCompletionChunkWire[]): number[] {
  return chunks.flatMap((c) => c.choices[0]?.token_ids ?? []);
}

function concatLogprobs(chunks: ChatCompletionChunkWire[]) {
  return chunks.flatMap((c) => c.choices[0]?.logprobs?.content ?? []);
}

describe('POST /v1/chat/completions (non-streaming)', () => {
  it('answers a chat.completion with token ids, logprobs, reasoning and parsed tool calls', async () => {
    const { status, json } = await postJson(chatUrl, { ...BASE, stream: false });
    expect(status).toBe(200);
    const body = json as ChatCompletionWire;
    const choice = body.choices[0];
    expect(body.object).toBe('chat.completion');
    expect(body.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(body.prompt_token_ids?.slice(0, 3)).toEqual([151644, 8948, 198]);
    expect(body.prompt_token_ids?.slice(-3)).toEqual([151644, 77091, 198]);
    expect(choice?.message).toMatchObject({ role: 'assistant', content: '\n\nChecking.\n', reasoning: '\nLook first.\n', refusal: null });
    expect(choice?.message.tool_calls).toEqual([
      { id: expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/), type: 'function', function: { name: 'bash', arguments: '{"cmd": "ls -la é"}' } },
    ]);
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.stop_reason).toBeNull();
    const ids = choice?.token_ids ?? [];
    expect(ids[0]).toBe(151667);
    expect(ids.at(-1)).toBe(151645);
    expect(choice?.logprobs?.content).toHaveLength(ids.length);
    expect(body.usage).toEqual({
      prompt_tokens: body.prompt_token_ids?.length,
      completion_tokens: ids.length,
      total_tokens: (body.prompt_token_ids?.length ?? 0) + ids.length,
      prompt_tokens_details: null,
    });
    for (const entry of choice?.logprobs?.content ?? []) {
      expect(Math.fround(entry.logprob)).toBe(entry.logprob);
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.logprob).toBeGreaterThanOrEqual(-3);
      expect(entry.bytes).toEqual([...new TextEncoder().encode(entry.token)]);
      expect(entry.top_logprobs).toEqual([]);
    }
    expect(choice?.logprobs?.content?.at(-1)?.token).toBe('<|im_end|>');
  });

  it('answers top_logprobs with the sampled token first', async () => {
    const { json } = await postJson(chatUrl, { ...BASE, stream: false, top_logprobs: 3 });
    for (const entry of (json as ChatCompletionWire).choices[0]?.logprobs?.content ?? []) {
      expect(entry.top_logprobs).toHaveLength(3);
      expect(entry.top_logprobs?.[0]).toEqual({ token: entry.token, logprob: entry.logprob, bytes: entry.bytes });
      expect(new Set(entry.top_logprobs?.map((t) => t.token)).size).toBe(3);
    }
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const { json } = await postJson(chatUrl, { ...BASE, stream: false, max_tokens: 5 });
    const choice = (json as ChatCompletionWire).choices[0];
    expect(choice?.token_ids).toHaveLength(5);
    expect(choice?.finish_reason).toBe('length');
    expect(choice?.message.tool_calls).toBeUndefined();
  });

  it('the next prompt re-renders the sampled turn with Qwen3\'s own imperfection (an extra "\\n" before the call)', async () => {
    const first = (await postJson(chatUrl, { ...BASE, stream: false })).json as ChatCompletionWire;
    const message = first.choices[0]?.message;
    const next = (await postJson(chatUrl, {
      ...BASE,
      stream: false,
      messages: [...BASE.messages, message, { role: 'tool', tool_call_id: message?.tool_calls?.[0]?.id, content: 'a.py' }],
    })).json as ChatCompletionWire;
    const p1 = first.prompt_token_ids ?? [];
    const g1 = first.choices[0]?.token_ids ?? [];
    const p2 = next.prompt_token_ids ?? [];
    const agreed = g1.indexOf(151668) + 1; // through </think>
    expect(p2.slice(0, p1.length + agreed)).toEqual([...p1, ...g1.slice(0, agreed)]);
    // The template re-renders content "\n\nChecking.\n" as "Checking.\n" + "\n" before the call.
    expect(decodeTokens(g1)).toContain('</think>\n\nChecking.\n<tool_call>');
    expect(decodeTokens(p2)).toContain('</think>\n\nChecking.\n\n<tool_call>');
    const wholeTurn = [...p1, ...g1];
    expect(p2.slice(0, wholeTurn.length)).not.toEqual(wholeTurn);
    expect(next.choices[0]?.message.content).toBe('\n\nFixed: 漢字 🙂');
    expect(next.choices[0]?.finish_reason).toBe('stop');
  });
});

describe('POST /v1/chat/completions (streaming)', () => {
  it.each([1, 3])('streams the same ids and logprobs as the non-streaming answer (chunkTokens %i)', async (chunkTokens) => {
    const local = await startSimServer({ policy: scriptedPolicy({ turns: TURNS }), chunkTokens });
    try {
      const url = `${local.url}/chat/completions`;
      const full = (await postJson(url, { ...BASE, stream: false })).json as ChatCompletionWire;
      const streamed = await postStream(url, { ...BASE, stream: true, stream_options: { include_usage: true } });
      expect(streamed.status).toBe(200);
      expect(streamed.contentType).toBe('text/event-stream; charset=utf-8');
      expect(streamed.done).toBe(true);
      const [first, ...rest] = streamed.chunks;
      expect(first?.choices[0]).toEqual({ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null });
      expect(first?.prompt_token_ids).toEqual(full.prompt_token_ids);
      const usageChunk = rest.at(-1);
      expect(usageChunk?.choices).toEqual([]);
      expect(usageChunk?.usage).toEqual({ prompt_tokens: full.usage?.prompt_tokens, completion_tokens: full.usage?.completion_tokens, total_tokens: full.usage?.total_tokens });
      const tokenChunks = rest.slice(0, -1);
      expect(concatIds(tokenChunks)).toEqual(full.choices[0]?.token_ids);
      expect(concatLogprobs(tokenChunks)).toEqual(full.choices[0]?.logprobs?.content);
      const last = tokenChunks.at(-1)?.choices[0];
      expect(last?.finish_reason).toBe('tool_calls');
      expect(last?.stop_reason).toBeNull();
      expect(tokenChunks.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
      const reasoning = tokenChunks.map((c) => c.choices[0]?.delta.reasoning ?? '').join('');
      const content = tokenChunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      const args = tokenChunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).map((t) => t.function?.arguments ?? '').join('');
      expect(reasoning).toBe(full.choices[0]?.message.reasoning);
      expect(content).toBe(full.choices[0]?.message.content);
      expect(args).toBe(full.choices[0]?.message.tool_calls?.[0]?.function.arguments);
    } finally {
      await local.close();
    }
  });

  it('without logprobs or token ids, chunks the parsers hold back are not sent', async () => {
    const streamed = await postStream(chatUrl, { ...BASE, stream: true, logprobs: false, return_token_ids: false });
    const tokenChunks = streamed.chunks.slice(1);
    expect(streamed.chunks[0]?.prompt_token_ids).toBeNull();
    expect(tokenChunks.every((c) => c.choices[0]?.token_ids === null && c.choices[0]?.logprobs === null)).toBe(true);
    expect(tokenChunks.slice(0, -1).every((c) => Object.keys(c.choices[0]?.delta ?? {}).length > 0)).toBe(true);
  });
});

describe('vLLM < 0.10.2 imitation (returnTokenIds: false)', () => {
  it('omits prompt_token_ids and token_ids entirely', async () => {
    const old = await startSimServer({ policy: scriptedPolicy({ turns: TURNS }), returnTokenIds: false });
    try {
      const { json } = await postJson(`${old.url}/chat/completions`, { ...BASE, stream: false });
      const body = json as Record<string, unknown> & ChatCompletionWire;
      expect('prompt_token_ids' in body).toBe(false);
      expect('token_ids' in (body.choices[0] ?? {})).toBe(false);
      expect(body.choices[0]?.logprobs?.content?.length).toBeGreaterThan(0);
      const streamed = await postStream(`${old.url}/chat/completions`, { ...BASE, stream: true });
      expect(streamed.chunks.every((c) => !('prompt_token_ids' in c) && c.choices.every((ch) => !('token_ids' in ch)))).toBe(true);
    } finally {
      await old.close();
    }
  });
});

describe('errors', () => {
  it.each([
    ['v0.11' as const, 40, undefined, /^This model's maximum context length is 40 tokens\. However, your request has \d+ input tokens\. Please reduce the length of the input messages\. None$/],
    ['v0.11' as const, 200, 150, /^'max_tokens' or 'max_completion_tokens' is too large: 150\. This model's maximum context length is 200 tokens and your request has (\d+) input tokens \(150 > 200 - \1\)\. None$/],
    ['legacy' as const, 200, 150, /^This model's maximum context length is 200 tokens\. However, you requested \d+ tokens \((\d+) in the messages, 150 in the completion\)\. Please reduce the length of the messages or completion\.$/],
  ])('context overflow (%s, max_model_len %i, max_tokens %s) is vLLM\'s 400', async (style, maxModelLen, maxTokens, message) => {
    const small = await startSimServer({ policy: scriptedPolicy({ turns: TURNS }), maxModelLen, contextErrorStyle: style });
    try {
      const { status, json } = await postJson(`${small.url}/chat/completions`, { ...BASE, max_tokens: maxTokens });
      expect(status).toBe(400);
      const error = (json as ErrorResponseWire).error;
      expect(error).toMatchObject({ type: 'BadRequestError', param: null, code: 400 });
      expect(error?.message).toMatch(message);
    } finally {
      await small.close();
    }
  });

  it('an error turn answers its status with a vLLM error body', async () => {
    const messages = [...BASE.messages, { role: 'assistant', content: 'a' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'c' }];
    const { status, json } = await postJson(chatUrl, { ...BASE, messages });
    expect(status).toBe(503);
    expect(json).toEqual({ error: { message: 'Simulated overload.', type: 'ServiceUnavailableError', param: null, code: 503 } });
  });

  it.each([
    ['unknown model', { ...BASE, model: 'gpt-4' }, 404, /The model `gpt-4` does not exist\./],
    ['no messages', { model: 'polar-sim-qwen3' }, 400, /messages/],
    ['tool_choice without tools', { ...BASE, tools: undefined, tool_choice: 'auto' }, 400, /`tools` must be set/],
    ['named tool that was not passed', { ...BASE, tool_choice: { type: 'function', function: { name: 'nope' } } }, 400, /Tool 'nope' has not been passed/],
    ['top_logprobs over 20', { ...BASE, top_logprobs: 21 }, 400, /greater than max allowed: 20/],
  ])('%s', async (_name, body, status, message) => {
    const response = await postJson(chatUrl, body);
    expect(response.status).toBe(status);
    expect((response.json as ErrorResponseWire).error?.message).toMatch(message);
  });

  it('answers malformed JSON with a 400', async () => {
    const response = await fetch(chatUrl, { method: 'POST', body: '{ nope' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorResponseWire).error?.type).toBe('BadRequestError');
  });
});

describe('other endpoints', () => {
  it('POST /tokenize counts what a completion reports as prompt_token_ids', async () => {
    const completion = (await postJson(chatUrl, { ...BASE, stream: false })).json as ChatCompletionWire;
    const { status, json } = await postJson(`${root}/tokenize`, { model: BASE.model, messages: BASE.messages, tools: TOOLS, return_token_strs: true });
    expect(status).toBe(200);
    const body = json as { count: number; max_model_len: number; tokens: number[]; token_strs: string[] };
    expect(body.count).toBe(completion.prompt_token_ids?.length);
    expect(body.tokens).toEqual(completion.prompt_token_ids);
    expect(body.max_model_len).toBe(32768);
    expect(body.token_strs.slice(0, 3)).toEqual(['<|im_start|>', 'system', 'Ċ']);
    const plain = (await postJson(`${root}/tokenize`, { prompt: 'Hello' })).json;
    expect(plain).toEqual({ count: 1, max_model_len: 32768, tokens: [9707], token_strs: null });
    expect((await postJson(`${root}/detokenize`, { tokens: [9707, 151645] })).json).toEqual({ prompt: 'Hello<|im_end|>' });
  });

  it('GET /v1/models, /health, /version; unknown routes and methods', async () => {
    const models = (await (await fetch(`${server.url}/models`)).json()) as { object: string; data: Record<string, unknown>[] };
    expect(models.object).toBe('list');
    expect(models.data[0]).toMatchObject({ id: 'polar-sim-qwen3', object: 'model', owned_by: 'vllm', max_model_len: 32768, root: 'polar-sim-qwen3' });
    const health = await fetch(`${root}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('');
    expect(await (await fetch(`${root}/version`)).json()).toEqual({ version: SIM_VERSION });
    expect((await fetch(`${root}/nope`)).status).toBe(404);
    expect((await fetch(chatUrl)).status).toBe(405);
  });
});

describe('client disconnect', () => {
  it('stops generating and counts the disconnect', async () => {
    const slow = await startSimServer({ policy: scriptedPolicy({ turns: TURNS }), latency: { firstTokenMs: 5, perTokenMs: 40 } });
    try {
      const controller = new AbortController();
      const response = await fetch(`${slow.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ ...BASE, stream: true }),
        signal: controller.signal,
      });
      const reader = response.body?.getReader();
      await reader?.read();
      expect(slow.stats.inFlight).toBe(1);
      controller.abort();
      await expect.poll(() => slow.stats.disconnects, { timeout: 2000 }).toBe(1);
      expect(slow.stats.inFlight).toBe(0);
      expect(slow.stats.requests).toBe(1);
    } finally {
      await slow.close();
    }
  });

  it('paces a non-streaming answer by the simulated latency', async () => {
    const slow = await startSimServer({ policy: scriptedPolicy({ turns: TURNS }), latency: { firstTokenMs: 100, perTokenMs: 0 } });
    try {
      const started = performance.now();
      await postJson(`${slow.url}/chat/completions`, BASE);
      expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    } finally {
      await slow.close();
    }
  });
});

describe('lifecycle', () => {
  it('rejects a busy port and closes idempotently', async () => {
    await expect(startSimServer({ policy: scriptedPolicy({ turns: [] }), port: server.port })).rejects.toThrow(/EADDRINUSE/);
    const extra = await startSimServer({ policy: scriptedPolicy({ turns: [] }) });
    expect(extra.url).toBe(`http://127.0.0.1:${extra.port}/v1`);
    await extra.close();
    await extra.close();
    await expect(fetch(`${extra.url}/models`)).rejects.toThrow();
  });
});
