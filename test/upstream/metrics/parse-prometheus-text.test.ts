// The tolerant exposition reader: on the simulator's real /metrics text (vLLM and SGLang names, over a real
// socket), on the example output of vLLM's and SGLang's documentation, and on what other servers write.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noopPolicy } from '../../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../../src/sim/sim-server.js';
import { MetricSet } from '../../../src/upstream/metrics/metric-set.js';
import { parsePrometheusText } from '../../../src/upstream/metrics/parse-prometheus-text.js';
import { parsePrometheusText as strictParse } from '../../sim/parse-prometheus-text.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/metrics');
const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function metricsText(options: Partial<SimServerOptions>): Promise<string> {
  const sim = await startSimServer({ policy: noopPolicy(), gpu: { profile: 'qwen3-8b-h100' }, ...options });
  servers.push(sim);
  const chat = await fetch(`${sim.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'hello' }] }) });
  expect(chat.status).toBe(200);
  await chat.text();
  const response = await fetch(sim.url.replace(/\/v1$/, '/metrics'));
  expect(response.status).toBe(200);
  return response.text();
}

describe('parsePrometheusText', () => {
  it.each([
    ['vLLM', {}],
    ['SGLang', { engine: 'sglang' as const, sglang: { enableMetrics: true } }],
  ])("reads every sample of the simulator's %s /metrics, as the strict reader does", async (_name, options) => {
    const text = await metricsText(options);
    const strict = strictParse(text);
    const parsed = parsePrometheusText(text);
    expect(parsed.skipped).toBe(0);
    expect(parsed.samples).toEqual(strict.samples);
    expect(parsed.samples.length).toBeGreaterThan(20);
    expect(new Map([...parsed.types].filter(([, type]) => type !== undefined))).toEqual(strict.types);
  });

  it("reads the documentation's example output of SGLang and vLLM (exponents, histograms' _sum and _bucket)", () => {
    const sglang = new MetricSet(parsePrometheusText(readFileSync(path.join(FIXTURES, 'sglang-docs.prom'), 'utf8')));
    expect(sglang.parsed.skipped).toBe(0);
    expect(sglang.sum('sglang:prompt_tokens_total')).toBe(8_128_902);
    expect(sglang.sum('sglang:generation_tokens_total')).toBe(7_557_572);
    expect(sglang.mean('sglang:token_usage')).toBe(0.28);
    expect(sglang.sum('sglang:time_to_first_token_seconds_sum')).toBeCloseTo(2_351_897.9474117756, 6);
    expect(sglang.select('sglang:time_to_first_token_seconds_bucket').map((sample) => sample.labels['le'])).toEqual(['0.001', '0.005']);
    expect(sglang.parsed.types.get('sglang:time_to_first_token_seconds')).toBe('histogram');
    const vllm = new MetricSet(parsePrometheusText(readFileSync(path.join(FIXTURES, 'vllm-docs.prom'), 'utf8')));
    expect(vllm.parsed.skipped).toBe(0);
    expect(vllm.select('vllm:iteration_tokens_total_bucket')).toHaveLength(8);
    expect(vllm.sum('vllm:iteration_tokens_total_bucket', { le: '512.0' })).toBe(3);
  });

  it('is tolerant of what other exporters write, and counts the lines it cannot read', () => {
    const text = [
      '# HELP weird_total A "quoted" help\\nline',
      '# TYPE weird_total counter',
      'weird_total{path="C:\\\\dir",msg="say \\"hi\\"\\nbye",} 12 1700000000000',
      'spaced { a = "1" , b="2" } 3.5e+02',
      'bare 7',
      'inf_gauge +Inf',
      'nan_gauge NaN',
      'neg -0.25',
      'exemplar_total{a="x"} 4 # {trace_id="abc"} 1.0 1700000000',
      'carriage 5\r',
      'not a sample line at all',
      'broken{a="unterminated} 1',
      'no_value{a="1"}',
      '# EOF',
      '',
    ].join('\n');
    const parsed = parsePrometheusText(text);
    const set = new MetricSet(parsed);
    expect(parsed.skipped).toBe(3);
    expect(parsed.types.get('weird_total')).toBe('counter');
    expect(set.select('weird_total')[0]?.labels).toEqual({ path: 'C:\\dir', msg: 'say "hi"\nbye' });
    expect(set.sum('weird_total')).toBe(12);
    expect(set.select('spaced')[0]).toEqual({ name: 'spaced', labels: { a: '1', b: '2' }, value: 350 });
    expect(set.sum('bare')).toBe(7);
    expect(set.sum('neg')).toBe(-0.25);
    expect(set.sum('exemplar_total')).toBe(4);
    expect(set.sum('carriage')).toBe(5);
    // Non-finite samples are served but never summed into a figure.
    expect(parsed.samples.find((sample) => sample.name === 'inf_gauge')?.value).toBe(Number.POSITIVE_INFINITY);
    expect(set.sum('inf_gauge')).toBeNull();
    expect(set.sum('nan_gauge')).toBeNull();
    expect(set.sum('absent')).toBeNull();
  });

  it('sums counts over several schedulers and averages fractions (data-parallel engines)', () => {
    const set = new MetricSet(
      parsePrometheusText(
        [
          'vllm:num_requests_running{engine="0",model_name="m"} 3.0',
          'vllm:num_requests_running{engine="1",model_name="m"} 5.0',
          'vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.2',
          'vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.6',
        ].join('\n'),
      ),
    );
    expect(set.sum('vllm:num_requests_running')).toBe(8);
    expect(set.sum('vllm:num_requests_running', { engine: '1' })).toBe(5);
    expect(set.mean('vllm:kv_cache_usage_perc')).toBeCloseTo(0.4, 12);
    expect(set.sumFirst(['vllm:absent_total', 'vllm:num_requests_running'])).toBe(8);
  });
});
