// The simulator with a simulated GPU, over a real socket with the official openai SDK: tokens come from
// engine steps (batched across calls), /metrics reads as Prometheus text with vLLM's names, and the engine
// controls (pause keep / abort, weight updates, sleep) show up in what the client receives.
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/sim/policy.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import { sampledLogprob } from '../../src/sim/synthetic-logprobs.js';
import { parsePrometheusText } from './parse-prometheus-text.js';
import { until } from '../helpers/until.js';

type VllmChunk = ChatCompletionChunk & { choices: (ChatCompletionChunk.Choice & { token_ids?: number[] | null })[] };
type VllmCompletion = ChatCompletion & { choices: (ChatCompletion.Choice & { token_ids?: number[] | null })[] };

const LONG_ANSWER: Policy = () => ({ reasoning: 'Think it through.', content: 'one two three four five six seven eight nine ten '.repeat(6) });
const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<SimServerOptions> = {}): Promise<{ sim: SimServer; client: OpenAI }> {
  const sim = await startSimServer({ policy: LONG_ANSWER, gpu: { profile: 'qwen3-8b-h100' }, ...options });
  servers.push(sim);
  return { sim, client: new OpenAI({ apiKey: 'sk-sim', baseURL: sim.url, maxRetries: 0 }) };
}

const ask = (text: string) => ({ model: 'polar-sim-qwen3', messages: [{ role: 'user' as const, content: text }], logprobs: true, return_token_ids: true });

async function metricsOf(sim: SimServer) {
  const response = await fetch(sim.url.replace(/\/v1$/, '/metrics'));
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await response.text());
}

describe('a simulated GPU behind the HTTP API', () => {
  it('a lone non-streaming call takes one engine step per sampled token (its prefill samples the first)', async () => {
    const { sim, client } = await start();
    const completion = (await client.chat.completions.create(ask('hi'))) as VllmCompletion;
    const sampled = completion.usage?.completion_tokens ?? 0;
    expect(sampled).toBeGreaterThan(50);
    expect(completion.choices[0]?.token_ids).toHaveLength(sampled);
    expect(sim.engine.metrics()).toMatchObject({ steps: sampled, generationTokens: sampled, promptTokens: completion.usage?.prompt_tokens, running: 0 });
  });

  it('two concurrent streams share steps (continuous batching)', async () => {
    const { sim, client } = await start();
    const read = async (text: string): Promise<number> => {
      let tokens = 0;
      for await (const chunk of (await client.chat.completions.create({ ...ask(text), stream: true })) as AsyncIterable<VllmChunk>) tokens += chunk.choices[0]?.token_ids?.length ?? 0;
      return tokens;
    };
    const [a, b] = await Promise.all([read('first'), read('second')]);
    const { steps, generationTokens } = sim.engine.metrics();
    expect(generationTokens).toBe(a + b);
    expect(steps).toBeGreaterThanOrEqual(Math.max(a, b));
    expect(steps).toBeLessThan(a + b);
  });

  it('serves /metrics with vLLM names whose counters move; a resent conversation hits the prefix cache', async () => {
    const { sim, client } = await start();
    const before = await metricsOf(sim);
    const labels = { model_name: 'polar-sim-qwen3', engine: '0' };
    expect(before.types.get('vllm:generation_tokens_total')).toBe('counter');
    expect(before.types.get('vllm:num_requests_running')).toBe('gauge');
    expect(before.value('vllm:generation_tokens_total', labels)).toBe(0);
    expect(before.value('polar_sim_gpu_ceiling_tokens_per_second', labels)).toBeGreaterThan(1000);
    expect(before.has('vllm:gpu_cache_usage_perc')).toBe(false);

    const stream = (await client.chat.completions.create({ ...ask('count'), stream: true })) as AsyncIterable<VllmChunk>;
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    await iterator.next();
    const during = await metricsOf(sim);
    expect(during.value('vllm:num_requests_running', labels)).toBe(1);
    expect(during.value('vllm:kv_cache_usage_perc', labels)).toBeGreaterThan(0);
    let sampled = 0;
    for (let step = await iterator.next(); !step.done; step = await iterator.next()) sampled += step.value.choices[0]?.token_ids?.length ?? 0;

    // A conversation with a long system prompt, resent with one more turn: its full blocks are cached.
    const system = { role: 'system' as const, content: 'You are a careful assistant who answers in plain words. '.repeat(8) };
    const first = (await client.chat.completions.create({ ...ask(''), messages: [system, { role: 'user', content: 'a question' }] })) as VllmCompletion;
    const answer = first.choices[0]?.message.content ?? '';
    await client.chat.completions.create({ ...ask(''), messages: [system, { role: 'user', content: 'a question' }, { role: 'assistant', content: answer }, { role: 'user', content: 'and then?' }] });
    const after = await metricsOf(sim);
    const engine = sim.engine.metrics();
    expect(after.value('vllm:generation_tokens_total', labels)).toBe(engine.generationTokens);
    expect(engine.generationTokens).toBeGreaterThan(sampled);
    expect(after.value('vllm:prompt_tokens_total', labels)).toBe(engine.promptTokens);
    expect(after.value('vllm:request_success_total', { ...labels, finished_reason: 'stop' })).toBe(3);
    expect(after.value('vllm:num_requests_running', labels)).toBe(0);
    expect(after.value('vllm:prefix_cache_hits_total', labels)).toBeGreaterThan(0);
    expect(after.value('vllm:prefix_cache_queries_total', labels)).toBeGreaterThan(after.value('vllm:prefix_cache_hits_total', labels));
    expect(after.value('polar_sim_engine_busy_seconds_total', labels)).toBeGreaterThan(0);
  });

  it('imitates the older metric names with --vllm-compat 0.10.2, and serves /metrics without a GPU', async () => {
    const { sim } = await start({ vllmCompat: '0.10.2' });
    const old = await metricsOf(sim);
    expect(old.has('vllm:gpu_cache_usage_perc')).toBe(true);
    expect(old.has('vllm:kv_cache_usage_perc')).toBe(true);
    expect(old.has('vllm:gpu_prefix_cache_hits_total')).toBe(true);

    const plain = await startSimServer({ policy: LONG_ANSWER });
    servers.push(plain);
    await new OpenAI({ apiKey: 'k', baseURL: plain.url, maxRetries: 0 }).chat.completions.create(ask('x'));
    const metrics = await metricsOf(plain);
    expect(metrics.value('vllm:generation_tokens_total')).toBeGreaterThan(0);
    expect(metrics.has('polar_sim_gpu_ceiling_tokens_per_second')).toBe(false);
  });
});

describe('engine control seen by the client', () => {
  it('pause keep mid-stream, a weight update, resume: the remaining tokens carry the new version in their logprobs', async () => {
    const { sim, client } = await start();
    const stream = (await client.chat.completions.create({ ...ask('go'), stream: true })) as AsyncIterable<VllmChunk>;
    const ids: number[] = [];
    const logprobs: number[] = [];
    let paused = false;
    let atPause = 0;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      ids.push(...(choice?.token_ids ?? []));
      logprobs.push(...(choice?.logprobs?.content ?? []).map((entry) => entry.logprob));
      if (!paused && ids.length >= 5) {
        paused = true;
        await sim.engine.pause('keep');
        atPause = sim.engine.metrics().generationTokens;
        expect(sim.engine.isPaused()).toBe(true);
        await sim.engine.updateWeights({ version: 2 });
        sim.engine.resume();
      }
    }
    expect(ids.length).toBe(logprobs.length);
    const versions = ids.map((id, i) => (logprobs[i] === sampledLogprob(i, id, 0) ? 0 : logprobs[i] === sampledLogprob(i, id, 2) ? 2 : -1));
    const boundary = versions.indexOf(2);
    expect(boundary).toBe(atPause);
    expect(versions).toEqual([...Array(boundary).fill(0), ...Array(ids.length - boundary).fill(2)]);
    expect(sim.engine.metrics()).toMatchObject({ weightVersion: 2, preemptions: 0 });
  });

  it('pause abort ends a streaming and a non-streaming call with finish_reason abort and the tokens so far', async () => {
    const { sim, client } = await start();
    const json = client.chat.completions.create(ask('long one')) as Promise<VllmCompletion>;
    const stream = (await client.chat.completions.create({ ...ask('another'), stream: true })) as AsyncIterable<VllmChunk>;
    const chunks: VllmChunk[] = [];
    let aborted = false;
    for await (const chunk of stream) {
      chunks.push(chunk);
      const streamed = chunks.reduce((n, c) => n + (c.choices[0]?.token_ids?.length ?? 0), 0);
      if (!aborted && streamed >= 4) {
        aborted = true;
        await sim.engine.pause('abort');
      }
    }
    const last = chunks.at(-1)?.choices[0];
    expect(last?.finish_reason).toBe('abort');
    const completion = await json;
    expect(completion.choices[0]?.finish_reason).toBe('abort');
    const planned = sim.engine.metrics();
    expect(planned.finished.abort).toBe(2);
    expect(completion.usage?.completion_tokens).toBe(completion.choices[0]?.token_ids?.length);
    expect(completion.usage?.completion_tokens).toBeLessThan(50);
    sim.engine.resume();
  });

  it('while asleep a request waits (and is counted); after wakeUp it is answered', async () => {
    const { sim, client } = await start();
    await sim.engine.sleep(1);
    expect(sim.engine.isSleeping()).toBe(true);
    const answer = client.chat.completions.create(ask('hello?'));
    await until(() => sim.engine.metrics().waiting === 1, 'the request to queue');
    expect(sim.engine.metrics()).toMatchObject({ arrivedWhileAsleep: 1, running: 0, generationTokens: 0, sleepLevel: 1 });
    sim.engine.wakeUp();
    expect((await answer).choices[0]?.finish_reason).toBe('stop');
  });
});
