// An engine metrics snapshot under vLLM's Prometheus names (vllm/v1/metrics/loggers.py, PrometheusStatLogger; read at 005a810b and two later stored versions),
// plus polar_sim_* series that vLLM does not have (clearly named so nobody mistakes them for vLLM's).
// Names by version: vllm:gpu_cache_usage_perc and vllm:gpu_prefix_cache_{queries,hits} were deprecated in
// 0.9.2 for kv_cache_usage_perc / prefix_cache_{queries,hits}, hidden from 0.11 and removed in 0.12; a
// simulator imitating vLLM < 0.11 (--vllm-compat) serves both spellings.
import type { ServerResponse } from 'node:http';
import type { EngineMetricsSnapshot } from '../engine/engine-metrics.js';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type MetricFamily } from './prometheus-text.js';

export interface VllmMetricsOptions {
  /** The served model name (vLLM's model_name label). */
  modelName: string;
  /** Also serve the names deprecated in 0.9.2 (vLLM < 0.11). */
  legacyCacheNames: boolean;
  /** Unix seconds when the server started (the counters' `_created`). */
  createdSeconds: number;
}

export function renderVllmMetrics(snapshot: EngineMetricsSnapshot, options: VllmMetricsOptions): string {
  const labels = { model_name: options.modelName, engine: '0' };
  const gauge = (name: string, help: string, value: number): MetricFamily => ({ name, type: 'gauge', help, samples: [{ labels, value }] });
  const counter = (name: string, help: string, value: number): MetricFamily => ({ name, type: 'counter', help, samples: [{ labels, value }] });
  const legacy = options.legacyCacheNames;
  const capacity = snapshot.capacity;
  const families: (MetricFamily | false)[] = [
    gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', snapshot.running),
    gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', snapshot.waiting),
    legacy && gauge('vllm:gpu_cache_usage_perc', 'GPU KV-cache usage. 1 means 100 percent usage.DEPRECATED: Use vllm:kv_cache_usage_perc instead.', snapshot.kvCacheUsage),
    legacy && counter('vllm:gpu_prefix_cache_queries', 'GPU prefix cache queries, in terms of number of queried tokens.DEPRECATED: Use vllm:prefix_cache_queries instead.', snapshot.prefixCacheQueries),
    legacy && counter('vllm:gpu_prefix_cache_hits', 'GPU prefix cache hits, in terms of number of cached tokens.DEPRECATED: Use vllm:prefix_cache_hits instead.', snapshot.prefixCacheHits),
    gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', snapshot.kvCacheUsage),
    counter('vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', snapshot.prefixCacheQueries),
    counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', snapshot.prefixCacheHits),
    counter('vllm:num_preemptions', 'Cumulative number of preemption from the engine.', snapshot.preemptions),
    counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', snapshot.promptTokens),
    counter('vllm:generation_tokens', 'Number of generation tokens processed.', snapshot.generationTokens),
    {
      name: 'vllm:request_success',
      type: 'counter',
      help: 'Count of successfully processed requests.',
      samples: (['stop', 'length', 'abort'] as const).map((reason) => ({ labels: { ...labels, finished_reason: reason }, value: snapshot.finished[reason] })),
    },
    capacity.ceilingTokensPerSecond !== null &&
      gauge('polar_sim_gpu_ceiling_tokens_per_second', 'polar simulator: tokens/s the simulated GPU processes when every step carries a full max_num_batched_tokens budget.', capacity.ceilingTokensPerSecond),
    capacity.kvCacheTokens !== null && gauge('polar_sim_kv_cache_capacity_tokens', 'polar simulator: KV cache capacity in tokens.', capacity.kvCacheTokens),
    counter('polar_sim_processed_tokens', 'polar simulator: tokens the model computed (prefill, recompute after preemption, decode).', snapshot.processedTokens),
    counter('polar_sim_engine_busy_seconds', 'polar simulator: time spent in engine steps.', snapshot.busyMs / 1000),
    counter('polar_sim_engine_steps', 'polar simulator: engine steps run.', snapshot.steps),
    gauge('polar_sim_weight_version', 'polar simulator: the weight version new tokens are sampled with.', snapshot.weightVersion),
    gauge('polar_sim_paused', 'polar simulator: 1 while generation is paused.', snapshot.paused ? 1 : 0),
    gauge('polar_sim_sleep_level', 'polar simulator: 0 awake, else the sleep level.', snapshot.sleepLevel),
    counter('polar_sim_requests_arrived_asleep', 'polar simulator: requests that arrived while the engine slept.', snapshot.arrivedWhileAsleep),
  ];
  return renderPrometheus(families.filter((family): family is MetricFamily => family !== false), options.createdSeconds);
}

/** Answers GET /metrics. */
export function sendVllmMetrics(res: ServerResponse, snapshot: EngineMetricsSnapshot, options: VllmMetricsOptions): void {
  const text = renderVllmMetrics(snapshot, options);
  res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
