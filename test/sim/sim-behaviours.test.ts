// The simulator's real-server behaviours (polar sim flags / sim:<policy>?option=…), over real sockets.
import { afterEach, describe, expect, it } from 'vitest';
import { parseSimSpec } from '../../src/sim/parse-sim-spec.js';
import type { Policy } from '../../src/sim/policy.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import type { ChatCompletionWire } from '../../src/upstream/vllm-api-types.js';
import { postJson, postStream } from './sim-test-client.js';

const thinkAndCall: Policy = () => ({
  reasoning: 'I should look it up with the tool, carefully and at some length.',
  toolCalls: [{ name: 'get_time', arguments: { city: 'Paris' } }],
});
const TOOLS = [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function sim(options: Partial<SimServerOptions> = {}, policy: Policy = thinkAndCall): Promise<SimServer> {
  const server = await startSimServer({ policy, ...options });
  servers.push(server);
  return server;
}

function body(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { messages: [{ role: 'user', content: 'time in Paris?' }], tools: TOOLS, logprobs: true, return_token_ids: true, max_tokens: 200, ...extra };
}

const chat = (server: SimServer, extra: Record<string, unknown> = {}) => postJson(`${server.url}/chat/completions`, body(extra));

describe('simulator behaviours', () => {
  it('--served-model-name a,b: lists both, answers as the one asked, 404 for others', async () => {
    const server = await sim({ servedModelNames: ['base', 'lora'] });
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((card) => card.id)).toEqual(['base', 'lora']);
    expect(((await chat(server, { model: 'lora' })).json as ChatCompletionWire).model).toBe('lora');
    expect(((await chat(server)).json as ChatCompletionWire).model).toBe('base');
    expect((await chat(server, { model: 'other' })).status).toBe(404);
  });

  it('--logprobs-mode: raw logprobs ignore temperature, processed ones follow it', async () => {
    const logprobs = async (server: SimServer, temperature: number) =>
      ((await chat(server, { temperature })).json as ChatCompletionWire).choices[0]!.logprobs!.content!.map((entry) => entry.logprob);
    const raw = await sim({ logprobsMode: 'raw' });
    expect(await logprobs(raw, 0.5)).toEqual(await logprobs(raw, 1));
    const processed = await sim({ logprobsMode: 'processed' });
    const atOne = await logprobs(processed, 1);
    const atHalf = await logprobs(processed, 0.5);
    expect(atHalf).not.toEqual(atOne);
    expect(atOne).toEqual(await logprobs(raw, 1));
  });

  it('--clamp-logprobs 3: every third logprob is -9999', async () => {
    const values = ((await chat(await sim({ clampLogprobsEvery: 3 }))).json as ChatCompletionWire).choices[0]!.logprobs!.content!.map((entry) => entry.logprob);
    expect(values.filter((_, i) => (i + 1) % 3 === 0).every((value) => value === -9999)).toBe(true);
    expect(values.filter((_, i) => (i + 1) % 3 !== 0).every((value) => value > -9999)).toBe(true);
  });

  it.each([
    ['reasoning', ['reasoning'], ['reasoning_content']],
    ['reasoning_content', ['reasoning_content'], ['reasoning']],
    ['both', ['reasoning', 'reasoning_content'], []],
  ] as const)('--reasoning-field %s, non-streaming and streaming', async (field, present, absent) => {
    const server = await sim({ reasoningField: field });
    const message = ((await chat(server)).json as ChatCompletionWire).choices[0]!.message as unknown as Record<string, unknown>;
    for (const key of present) expect(message[key]).toContain('look it up');
    for (const key of absent) expect(message).not.toHaveProperty(key);
    const stream = await postStream(`${server.url}/chat/completions`, body({ stream: true }));
    const deltas = stream.chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta as Record<string, unknown>));
    for (const key of present) expect(deltas.some((delta) => typeof delta[key] === 'string')).toBe(true);
    for (const key of absent) expect(deltas.some((delta) => key in delta)).toBe(false);
  });

  it('--no-tool-calling: tool_choice auto gets vLLM\'s 400; no tools still works', async () => {
    const server = await sim({ toolCalling: false });
    const refused = await chat(server);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set' } });
    expect((await chat(server, { tools: undefined })).status).toBe(200);
  });

  it('--fail-after 2: the third chat call answers 500 with vLLM\'s error body', async () => {
    const server = await sim({ failAfter: 2 });
    expect((await chat(server)).status).toBe(200);
    expect((await chat(server)).status).toBe(200);
    const third = await chat(server);
    expect(third.status).toBe(500);
    expect(third.json).toMatchObject({ error: { code: 500, message: expect.stringContaining('EngineCore') } });
  });

  it('--restart-after 1 --restart-ms 400: the second call loses its connection, the port refuses, then serves again', async () => {
    const server = await sim({ restartAfter: 1, restartMs: 400 });
    expect((await chat(server)).status).toBe(200);
    await expect(chat(server)).rejects.toThrow();
    await expect(chat(server)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await chat(server)).status).toBe(200);
  });

  it('--stall-after 1 --stall-ms 300: later calls send nothing, then drop the connection', async () => {
    const server = await sim({ stallAfter: 1, stallMs: 300 });
    expect((await chat(server)).status).toBe(200);
    const started = performance.now();
    await expect(chat(server)).rejects.toThrow();
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('--answer-model: answers under another name (a misrouted server)', async () => {
    expect(((await chat(await sim({ answerModel: 'other' }))).json as ChatCompletionWire).model).toBe('other');
  });
});

describe('--vllm-compat (reference/vllm-conformance.md table A)', () => {
  const streamedIds = async (server: SimServer) => {
    const stream = await postStream(`${server.url}/chat/completions`, body({ stream: true, stream_options: { include_usage: true } }));
    const ids = stream.chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.token_ids ?? []));
    return { ids: ids.length, usage: stream.chunks.at(-1)?.usage?.completion_tokens };
  };

  it('A1: 0.10.2–0.12 drop held-back chunks (ids too); 0.13+ keep them', async () => {
    const old = await streamedIds(await sim({ vllmCompat: '0.11.0' }));
    expect(old.ids).toBeLessThan(old.usage!);
    const fixed = await streamedIds(await sim({ vllmCompat: '0.13.0' }));
    expect(fixed.ids).toBe(fixed.usage);
  });

  it('A2 and /version: 0.11.0 answers reasoning_content, 0.14 both, 0.16 reasoning only', async () => {
    const fields = async (version: string) => {
      const server = await sim({ vllmCompat: version });
      expect(await (await fetch(`${server.url.replace(/\/v1$/, '')}/version`)).json()).toEqual({ version: `${version}-polar-sim` });
      const message = ((await chat(server)).json as ChatCompletionWire).choices[0]!.message as unknown as Record<string, unknown>;
      return ['reasoning', 'reasoning_content'].filter((key) => key in message);
    };
    expect(await fields('0.11.0')).toEqual(['reasoning_content']);
    expect(await fields('0.14.0')).toEqual(['reasoning', 'reasoning_content']);
    expect(await fields('0.16.0')).toEqual(['reasoning']);
  });

  it('A4: thinking cut by max_tokens is content before ~0.17, reasoning after', async () => {
    const cut = async (version: string) => ((await chat(await sim({ vllmCompat: version, reasoningField: 'reasoning' }), { max_tokens: 5 })).json as ChatCompletionWire).choices[0]!;
    const old = await cut('0.11.0');
    expect(old.finish_reason).toBe('length');
    expect(old.message.reasoning).toBeNull();
    expect(old.message.content).toContain('<think>');
    const fresh = await cut('0.17.0');
    expect(fresh.message.content).toBeNull();
    expect(fresh.message.reasoning).toBeTruthy();
  });

  it('A9: the newest context-overflow wording with param input_tokens', async () => {
    const answer = await chat(await sim({ vllmCompat: '0.17.0', maxModelLen: 300 }), { max_tokens: 250 });
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({
      error: {
        param: 'input_tokens',
        message: expect.stringMatching(/However, you requested 250 output tokens and your prompt contains \d+ input tokens, for a total of \d+ tokens\..*\(parameter=input_tokens, value=\d+\)$/),
      },
    });
  });

  it('A11: a matched stop string ends the turn with stop_reason = the string, streaming and not', async () => {
    const server = await sim({}, () => ({ content: 'one two STOP three' }));
    const plain = ((await chat(server, { tools: undefined, stop: ['STOP'] })).json as ChatCompletionWire).choices[0]!;
    expect(plain).toMatchObject({ finish_reason: 'stop', stop_reason: 'STOP' });
    expect(plain.message.content).toBe('\n\none two '); // after the empty think block
    expect(plain.token_ids!.length).toBe(plain.logprobs!.content!.length);
    const stream = await postStream(`${server.url}/chat/completions`, body({ tools: undefined, stop: 'STOP', stream: true }));
    const last = stream.chunks.flatMap((chunk) => chunk.choices).at(-1)!;
    expect(last).toMatchObject({ finish_reason: 'stop', stop_reason: 'STOP' });
  });

  it('rejects versions before 0.10.2 and non-versions', async () => {
    await expect(sim({ vllmCompat: '0.9.0' })).rejects.toThrow('polar needs vLLM >= 0.10.2');
    await expect(sim({ vllmCompat: 'latest' })).rejects.toThrow('is not a vLLM version');
  });
});

describe('parseSimSpec', () => {
  it('splits policy and options', () => {
    expect(parseSimSpec('sim')).toEqual({ policySpec: 'noop', options: {} });
    expect(parseSimSpec('sim:scripted:/tmp/a.json?served-model-name=a,b&logprobs-mode=processed&fail-after=2&token-ids=false&vllm-compat=0.11.0&first-token-ms=5')).toEqual({
      policySpec: 'scripted:/tmp/a.json',
      options: { servedModelNames: ['a', 'b'], logprobsMode: 'processed', failAfter: 2, returnTokenIds: false, vllmCompat: '0.11.0', latency: { firstTokenMs: 5 } },
    });
  });

  it.each([
    ['sim:noop?nope=1', 'unknown simulator option "nope"'],
    ['sim:noop?fail-after=x', 'sim option fail-after=x: expected an integer >= 1'],
    ['sim:noop?logprobs-mode=cooked', 'expected one of raw, processed'],
    ['sim:noop?tool-calling=maybe', 'expected true or false'],
  ])('rejects %s', (spec, message) => {
    expect(() => parseSimSpec(spec)).toThrow(message);
  });
});
