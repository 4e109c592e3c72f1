// The poller over real sockets: utilisation from the simulator's /metrics against what its GPU engine itself
// counted, counter resets when an engine restarts, replicas without /metrics (reported, never fatal), and
// where the ceiling comes from (flag, profile, stored calibration, else unknown with the fix).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { noopPolicy } from '../../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../../src/sim/sim-server.js';
import { EngineMetricsPoller } from '../../../src/upstream/metrics/engine-metrics-poller.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sim(options: Partial<SimServerOptions> = {}): Promise<SimServer> {
  const server = await startSimServer({ policy: noopPolicy(), ...options });
  cleanups.push(() => server.close());
  return server;
}

function poller(replicas: { url: string; engine?: 'vllm' | 'sglang' }[], options: Partial<ConstructorParameters<typeof EngineMetricsPoller>[0]> = {}): EngineMetricsPoller {
  const made = new EngineMetricsPoller({ replicas: replicas.map((replica) => ({ url: replica.url, engine: replica.engine ?? 'vllm', model: 'polar-sim-qwen3', engineVersion: null })), ...options });
  cleanups.push(() => made.close());
  return made;
}

/** A /metrics server whose answer the test sets (a vLLM-named engine that may restart). */
async function scriptedMetrics(): Promise<{ url: string; serve(counters: { prompt: number; cached: number; generation: number; preemptions: number }): void }> {
  let body = '';
  const server: Server = createServer((req, res) => {
    if (req.url !== '/metrics') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    serve(c) {
      body = [
        'vllm:num_requests_running{engine="0",model_name="m"} 2.0',
        'vllm:num_requests_waiting{engine="0",model_name="m"} 1.0',
        'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25',
        `vllm:prompt_tokens_total{engine="0",model_name="m"} ${c.prompt}`,
        `vllm:prefix_cache_hits_total{engine="0",model_name="m"} ${c.cached}`,
        `vllm:generation_tokens_total{engine="0",model_name="m"} ${c.generation}`,
        `vllm:num_preemptions_total{engine="0",model_name="m"} ${c.preemptions}`,
        '',
      ].join('\n');
    },
  };
}

describe('effective GPU utilisation from the simulator', () => {
  it('agrees with what the simulated GPU itself processed over the same span (prefix-cache hits excluded)', async () => {
    const server = await sim({ gpu: { profile: 'qwen3-8b-h100' } });
    const engine = server.engine;
    const meter = poller([{ url: server.url }], { intervalMs: 100 });
    meter.start();
    await meter.pollNow();
    const window = meter.openWindow();
    const before = { ...engine.metrics(), at: performance.now() };
    // Eight agents, four turns each, over one long shared system prompt: most prompt tokens are cache hits.
    const client = new OpenAI({ apiKey: 'sk-sim', baseURL: server.url, maxRetries: 0 });
    const system = 'You are a careful software engineer working in a large repository. '.repeat(120);
    await Promise.all(
      Array.from({ length: 8 }, async (_, agent) => {
        const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
        for (let turn = 0; turn < 4; turn++) {
          messages.push({ role: 'user', content: `agent ${agent}, step ${turn}: run the tests` });
          const answer = await client.chat.completions.create({ model: 'polar-sim-qwen3', messages });
          messages.push({ role: 'assistant', content: answer.choices[0]?.message.content ?? '' });
          await new Promise((resolve) => setTimeout(resolve, 30)); // the tool runs; the GPU idles
        }
      }),
    );
    await meter.pollNow();
    const after = { ...engine.metrics(), at: performance.now() };
    const usage = window.usage();
    const hits = after.prefixCacheHits - before.prefixCacheHits;
    const prompt = after.promptTokens - before.promptTokens;
    expect(hits).toBeGreaterThan(prompt / 2);
    const ceiling = after.capacity.ceilingTokensPerSecond as number;
    const processed = after.processedTokens - before.processedTokens;
    const truth = processed / ((ceiling * (after.at - before.at)) / 1000);
    expect(usage.total.ceilingTokensPerSecond).toBe(ceiling);
    expect(usage.total.ceilingSource).toBe('profile');
    // Tokens: the engine counts each request's first sampled token in its prefill step (32 requests).
    expect(usage.total.processedTokens).toBe(prompt - hits + (after.generationTokens - before.generationTokens));
    expect(Math.abs((usage.total.processedTokens as number) - processed)).toBeLessThanOrEqual(32);
    // Time: the span between two readings, against the test's own clock around them.
    expect(usage.total.effectiveUtilisation).toBeGreaterThan(0.005);
    expect(Math.abs((usage.total.effectiveUtilisation as number) / truth - 1)).toBeLessThan(0.05);
    expect(usage.total.peakKvUsage).toBeGreaterThan(0);
    expect(usage.total.preemptions).toBe(0);
    // The GPU was busy far more of the time than it was used at its ceiling (decode-heavy turns).
    const busy = (after.busyMs - before.busyMs) / (after.at - before.at);
    expect(busy).toBeGreaterThan(usage.total.effectiveUtilisation as number);
    const live = meter.snapshot();
    expect(live.replicas[0]).toMatchObject({ metrics: 'ok', running: 0, waiting: 0, ceiling: { source: 'profile', tokensPerSecond: ceiling } });
    expect(live.total.reporting).toBe(1);
  }, 60_000);
});

describe('counters', () => {
  it('a restarted engine (counters down) counts what it did since the restart, every counter alike', async () => {
    const engine = await scriptedMetrics();
    let clock = 0;
    const meter = poller([{ url: engine.url }], { gpuPeakTokensPerSecond: 1000, now: () => clock, recentMs: 1500 });
    engine.serve({ prompt: 100, cached: 0, generation: 50, preemptions: 1 });
    await meter.pollNow();
    const window = meter.openWindow();
    clock = 1000;
    engine.serve({ prompt: 300, cached: 40, generation: 150, preemptions: 3 });
    await meter.pollNow();
    // Restarted: generation is back below its old value; prompt is above it, yet counts from zero too.
    clock = 2000;
    engine.serve({ prompt: 350, cached: 0, generation: 5, preemptions: 0 });
    await meter.pollNow();
    clock = 3000;
    engine.serve({ prompt: 450, cached: 30, generation: 55, preemptions: 2 });
    await meter.pollNow();
    const usage = window.usage().total;
    // (200 - 40 + 100) + (350 - 0 + 5) + (100 - 30 + 50)
    expect(usage.processedTokens).toBe(260 + 355 + 120);
    expect(usage.promptTokens).toBe(200 + 350 + 100);
    expect(usage.generationTokens).toBe(100 + 5 + 50);
    expect(usage.preemptions).toBe(2 + 0 + 2);
    expect(usage.wallMs).toBe(3000);
    expect(usage.effectiveUtilisation).toBeCloseTo(735 / 3000, 12);
    expect(usage.ceilingSource).toBe('flag');
    expect(usage.peakKvUsage).toBe(0.25);
    const live = meter.snapshot().replicas[0];
    // Recent rates over the last readings (1.5 s window: the last two intervals).
    expect(live?.generationTokensPerSecond).toBeCloseTo((5 + 50) / 2, 12);
    expect(live).toMatchObject({ running: 2, waiting: 1, kvUsage: 0.25, preemptions: 2 + 0 + 2, metrics: "ok" });
  });

  it('never counts more prompt tokens as computed than arrived (hits counted ahead of their prompt tokens)', async () => {
    const engine = await scriptedMetrics();
    let clock = 0;
    const meter = poller([{ url: engine.url }], { gpuPeakTokensPerSecond: 1000, now: () => clock });
    engine.serve({ prompt: 0, cached: 0, generation: 0, preemptions: 0 });
    await meter.pollNow();
    const window = meter.openWindow();
    clock = 1000;
    engine.serve({ prompt: 100, cached: 160, generation: 10, preemptions: 0 });
    await meter.pollNow();
    expect(window.usage().total.processedTokens).toBe(0 + 10);
  });
});

describe('replicas without metrics', () => {
  it('are reported with why and how to fix it, never thrown; the total is unknown, the others are measured', async () => {
    const vllm = await sim({ gpu: { profile: 'qwen3-8b-h100' } });
    const sglang = await sim({ engine: 'sglang' });
    const gone = 'http://127.0.0.1:1/v1';
    const meter = poller([{ url: vllm.url }, { url: sglang.url, engine: 'sglang' }, { url: gone }], { intervalMs: 50 });
    expect(meter.snapshot().replicas.map((replica) => replica.metrics)).toEqual(['pending', 'pending', 'pending']);
    const window = meter.openWindow();
    await meter.pollNow();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await meter.pollNow();
    const live = meter.snapshot();
    expect(live.replicas.map((replica) => replica.metrics)).toEqual(['ok', 'unavailable', 'unavailable']);
    expect(live.replicas[1]?.reason).toContain('answered 404');
    expect(live.replicas[1]?.reason).toContain('--enable-metrics');
    expect(live.replicas[2]?.reason).toMatch(/GET http:\/\/127\.0\.0\.1:1\/metrics failed \(.*ECONNREFUSED/);
    expect(live.total.reporting).toBe(1);
    expect(live.total.effectiveUtilisation).toBeNull();
    expect(live.total.utilisationUnknown).toContain(sglang.url);
    const usage = window.usage();
    expect(usage.replicas[0]?.effectiveUtilisation).not.toBeNull();
    expect(usage.replicas[0]?.unknown).toBeNull();
    expect(usage.replicas[0]?.unknownCode).toBeNull();
    expect(usage.replicas[1]?.effectiveUtilisation).toBeNull();
    expect(usage.replicas.map((replica) => replica.unknownCode)).toEqual([null, 'no-metrics', 'no-metrics']);
    expect(usage.total.effectiveUtilisation).toBeNull();
    expect(usage.total.unknown).toContain('--enable-metrics');
    expect(usage.total.unknownCode).toBe('no-metrics');
  });
});

describe('the ceiling', () => {
  it('is unknown without a profile, flag or calibration (with the fix), and never the run\'s own peak', async () => {
    const server = await sim(); // no GPU profile: no polar_sim ceiling gauge
    const meter = poller([{ url: server.url }]);
    const window = meter.openWindow();
    const simulated = new EngineMetricsPoller({ replicas: [{ url: server.url, engine: 'vllm', model: 'polar-sim-qwen3', engineVersion: '0.11.0-polar-sim' }] });
    cleanups.push(() => simulated.close());
    await simulated.pollNow();
    expect(simulated.snapshot().replicas[0]?.utilisationUnknown).toContain('the simulator has no GPU ceiling without a GPU profile: give it one (sim:<policy>?gpu=qwen3-8b-h100');
    await meter.pollNow();
    await meter.pollNow();
    const replica = meter.snapshot().replicas[0];
    expect(replica?.ceiling).toBeNull();
    expect(replica?.effectiveUtilisation).toBeNull();
    expect(replica?.utilisationUnknown).toBe(`no ceiling for ${server.url}: measure one with \`polar engine calibrate --upstream ${server.url}\` (stored for later runs), or pass --gpu-peak-tokens-per-second <tokens/s>`);
    // The run's totals carry the same reason as a code, which the dashboard reads (`util ? (no ceiling)`).
    expect(window.usage().total).toMatchObject({ effectiveUtilisation: null, unknownCode: 'no-ceiling', unknown: replica?.utilisationUnknown });
  });

  it('comes from the flag over the profile, and from a stored calibration when the engine reports none', async () => {
    const gpu = await sim({ gpu: { profile: 'qwen3-8b-h100' } });
    const flagged = poller([{ url: gpu.url }], { gpuPeakTokensPerSecond: 12_345 });
    await flagged.pollNow();
    expect(flagged.snapshot().replicas[0]?.ceiling).toMatchObject({ tokensPerSecond: 12_345, source: 'flag' });
    const plain = await sim();
    const calibrated = poller([{ url: plain.url }], { calibrated: new Map([[plain.url, { tokensPerSecond: 9_000, source: 'calibration' as const, detail: 'test' }]]) });
    await calibrated.pollNow();
    expect(calibrated.snapshot().replicas[0]?.ceiling).toEqual({ tokensPerSecond: 9_000, source: 'calibration', detail: 'test' });
  });
});
