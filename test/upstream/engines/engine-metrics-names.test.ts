// Each family's /metrics names into polar's EngineMetrics: on the simulator's real endpoint (a GPU profile,
// a shared prefix so the cache hits), compared with what its engine counted; older spellings; the series
// newer servers add (vLLM's prompt_tokens_by_source, SGLang's realtime_tokens) preferred when served.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { noopPolicy } from '../../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../../src/sim/sim-server.js';
import { readSglangMetrics } from '../../../src/upstream/engines/sglang-metrics.js';
import { readVllmMetrics } from '../../../src/upstream/engines/vllm-metrics.js';
import { MetricSet } from '../../../src/upstream/metrics/metric-set.js';
import { parsePrometheusText } from '../../../src/upstream/metrics/parse-prometheus-text.js';
import { scrapeMetrics } from '../../../src/upstream/metrics/scrape-metrics.js';

const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const LONG_CONTEXT = 'The repository has a failing test in the parser module. '.repeat(40);

/** A simulator with a GPU, after two calls that share a long first message (the second hits the prefix cache). */
async function busySim(options: Partial<SimServerOptions> = {}): Promise<SimServer> {
  const sim = await startSimServer({ policy: noopPolicy(), gpu: { profile: 'qwen3-8b-h100' }, ...options });
  servers.push(sim);
  const client = new OpenAI({ apiKey: 'sk-sim', baseURL: sim.url, maxRetries: 0 });
  for (const question of ['first question', 'second question']) {
    await client.chat.completions.create({ model: 'polar-sim-qwen3', messages: [{ role: 'system', content: LONG_CONTEXT }, { role: 'user', content: question }] });
  }
  return sim;
}

async function textOf(sim: SimServer): Promise<string> {
  return (await fetch(sim.url.replace(/\/v1$/, '/metrics'))).text();
}

const setOf = (text: string) => new MetricSet(parsePrometheusText(text));

describe('vLLM names', () => {
  it("read the simulator's /metrics into what its engine counted", async () => {
    const sim = await busySim();
    const scrape = await scrapeMetrics(sim.url);
    expect(scrape.ok).toBe(true);
    const reading = readVllmMetrics((scrape as { metrics: MetricSet }).metrics);
    const engine = sim.engine.metrics();
    expect(engine.prefixCacheHits).toBeGreaterThan(300);
    expect(reading).toEqual({
      running: 0,
      waiting: 0,
      kvUsage: engine.kvCacheUsage,
      kvCapacityTokens: engine.capacity.kvCacheTokens,
      counters: { promptTokens: engine.promptTokens, computedPromptTokens: null, cachedPromptTokens: engine.prefixCacheHits, generationTokens: engine.generationTokens, preemptions: 0 },
      profileCeilingTokensPerSecond: engine.capacity.ceilingTokensPerSecond,
    });
  });

  it('read the spellings deprecated in 0.9.2 when only they are served', async () => {
    const sim = await busySim({ vllmCompat: '0.10.2' });
    const text = await textOf(sim);
    expect(text).toContain('vllm:gpu_cache_usage_perc');
    // vLLM before 0.9.2 served only the old names: drop the new ones.
    const old = text.split('\n').filter((line) => !/^vllm:(kv_cache_usage_perc|prefix_cache_(hits|queries)_)/.test(line)).join('\n');
    const reading = readVllmMetrics(setOf(old));
    expect(reading.kvUsage).toBe(sim.engine.metrics().kvCacheUsage);
    expect(reading.counters.cachedPromptTokens).toBe(sim.engine.metrics().prefixCacheHits);
  });

  it("prefer what the engine says it computed (prompt_tokens_by_source, vLLM PR #33290) and its cached count", () => {
    const base = ['vllm:prompt_tokens_total{engine="0",model_name="m"} 1000.0', 'vllm:prefix_cache_hits_total{engine="0",model_name="m"} 900.0', 'vllm:generation_tokens_total{engine="0",model_name="m"} 50.0'];
    expect(readVllmMetrics(setOf(base.join('\n'))).counters).toMatchObject({ promptTokens: 1000, computedPromptTokens: null, cachedPromptTokens: 900 });
    const newer = [
      ...base,
      'vllm:prompt_tokens_cached_total{engine="0",model_name="m"} 600.0',
      'vllm:prompt_tokens_by_source_total{engine="0",model_name="m",source="local_compute"} 400.0',
      'vllm:prompt_tokens_by_source_total{engine="0",model_name="m",source="local_cache_hit"} 600.0',
      'vllm:prompt_tokens_by_source_total{engine="0",model_name="m",source="external_kv_transfer"} 0.0',
    ];
    expect(readVllmMetrics(setOf(newer.join('\n'))).counters).toMatchObject({ promptTokens: 1000, computedPromptTokens: 400, cachedPromptTokens: 600, generationTokens: 50 });
  });
});

describe('SGLang names', () => {
  it('SGLang without --enable-metrics answers 404 at /metrics', async () => {
    const sim = await startSimServer({ policy: noopPolicy(), engine: 'sglang' });
    servers.push(sim);
    const scrape = await scrapeMetrics(sim.url);
    expect(scrape).toEqual({ ok: false, status: 404, reason: `GET ${sim.url.replace(/\/v1$/, '/metrics')} answered 404` });
  });

  it("read the simulator's /metrics (realtime_tokens by mode) into what its engine counted", async () => {
    const sim = await busySim({ engine: 'sglang', sglang: { enableMetrics: true } });
    const text = await textOf(sim);
    const engine = sim.engine.metrics();
    const reading = readSglangMetrics(setOf(text));
    expect(engine.prefixCacheHits).toBeGreaterThan(300);
    expect(reading).toEqual({
      running: 0,
      waiting: 0,
      kvUsage: engine.kvCacheUsage,
      kvCapacityTokens: engine.capacity.kvCacheTokens,
      counters: {
        promptTokens: engine.processedTokens - engine.generationTokens + engine.prefixCacheHits,
        computedPromptTokens: engine.processedTokens - engine.generationTokens,
        cachedPromptTokens: engine.prefixCacheHits,
        generationTokens: engine.generationTokens,
        preemptions: 0,
      },
      profileCeilingTokensPerSecond: engine.capacity.ceilingTokensPerSecond,
    });
    // Processed = computed prompt + generated = every token the engine computed.
    expect((reading.counters.computedPromptTokens ?? 0) + (reading.counters.generationTokens ?? 0)).toBe(engine.processedTokens);
    // Without realtime_tokens (SGLang before PR #15747): the per-request counters.
    const older = readSglangMetrics(setOf(text.split('\n').filter((line) => !line.startsWith('sglang:realtime_tokens')).join('\n')));
    expect(older.counters).toEqual({ promptTokens: engine.promptTokens, computedPromptTokens: null, cachedPromptTokens: engine.prefixCacheHits, generationTokens: engine.generationTokens, preemptions: 0 });
  });
});
