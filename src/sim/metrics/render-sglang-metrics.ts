// An engine metrics snapshot under SGLang's Prometheus names (python/sglang/srt/metrics/collector.py, read at
// 00ae9c15), served only when the simulated server was "launched" with --enable-metrics, as SGLang does.
// Scheduler gauges carry SGLang's scheduler labels; the tokenizer's counters carry model_name. Real SGLang adds
// prompt / generation / cached tokens when a request finishes; the simulator adds them as they are computed
// (the engine's running totals), like sglang:realtime_tokens_total, which it serves too: prefill_cache is the
// prefix-cache hits, decode the sampled tokens, prefill_compute what the engine computed besides (so it
// counts a request's first sampled token as decode, where SGLang counts it in its prefill).
import type { ServerResponse } from 'node:http';
import type { EngineMetricsSnapshot } from '../engine/engine-metrics.js';
import { polarSimFamilies } from './polar-sim-families.js';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type MetricFamily } from './prometheus-text.js';

export interface SglangMetricsOptions {
  modelName: string;
  /** KV cache capacity in tokens (what /get_server_info reports as max_total_num_tokens). */
  maxTotalTokens: number;
  /** Unix seconds when the server started (the counters' `_created`). */
  createdSeconds: number;
}

export function renderSglangMetrics(snapshot: EngineMetricsSnapshot, options: SglangMetricsOptions): string {
  const scheduler = { engine_type: 'unified', model_name: options.modelName, moe_ep_rank: '0', pp_rank: '0', tp_rank: '0' };
  const tokenizer = { model_name: options.modelName };
  const gauge = (name: string, help: string, value: number): MetricFamily => ({ name, type: 'gauge', help, samples: [{ labels: scheduler, value }] });
  const counter = (name: string, help: string, value: number): MetricFamily => ({ name, type: 'counter', help, samples: [{ labels: tokenizer, value }] });
  const finished = snapshot.finished.stop + snapshot.finished.length + snapshot.finished.abort;
  const prefillCompute = Math.max(0, snapshot.processedTokens - snapshot.generationTokens);
  const families: MetricFamily[] = [
    gauge('sglang:num_running_reqs', 'The number of running requests.', snapshot.running),
    gauge('sglang:num_used_tokens', 'The number of used tokens.', Math.round(snapshot.kvCacheUsage * options.maxTotalTokens)),
    gauge('sglang:token_usage', 'The token usage.', snapshot.kvCacheUsage),
    gauge('sglang:num_queue_reqs', 'The number of requests in the waiting queue.', snapshot.waiting),
    gauge('sglang:cache_hit_rate', 'The prefix cache hit rate.', snapshot.prefixCacheQueries > 0 ? snapshot.prefixCacheHits / snapshot.prefixCacheQueries : 0),
    gauge('sglang:max_total_num_tokens', 'Maximum total number of tokens in the KV cache pool.', options.maxTotalTokens),
    { name: 'sglang:num_retracted_requests', type: 'counter', help: 'Total number of retracted requests.', samples: [{ labels: scheduler, value: snapshot.preemptions }] },
    {
      name: 'sglang:realtime_tokens',
      type: 'counter',
      help: 'Total number of tokens processed (updated on each log interval). mode: prefill_compute, prefill_cache, decode.',
      samples: [
        { labels: { ...scheduler, mode: 'prefill_compute' }, value: prefillCompute },
        { labels: { ...scheduler, mode: 'prefill_cache' }, value: snapshot.prefixCacheHits },
        { labels: { ...scheduler, mode: 'decode' }, value: snapshot.generationTokens },
      ],
    },
    counter('sglang:prompt_tokens', 'Number of prefill tokens processed.', snapshot.promptTokens),
    counter('sglang:generation_tokens', 'Number of generation tokens processed.', snapshot.generationTokens),
    { name: 'sglang:cached_tokens', type: 'counter', help: 'Number of cached prompt tokens.', samples: [{ labels: { ...tokenizer, cache_source: 'device' }, value: snapshot.prefixCacheHits }] },
    counter('sglang:num_requests', 'Number of requests processed.', finished),
    counter('sglang:num_aborted_requests', 'Number of requests aborted.', snapshot.finished.abort),
  ];
  return renderPrometheus([...families, ...polarSimFamilies(snapshot, scheduler)], options.createdSeconds);
}

/** Answers GET /metrics. */
export function sendSglangMetrics(res: ServerResponse, snapshot: EngineMetricsSnapshot, options: SglangMetricsOptions): void {
  const text = renderSglangMetrics(snapshot, options);
  res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
