// An engine metrics snapshot under vLLM's Prometheus names (vllm/v1/metrics/loggers.py, PrometheusStatLogger; read at 005a810b and two later stored versions),
// plus the polar_sim_* series vLLM does not have (polar-sim-families.ts).
// Names by version: vllm:gpu_cache_usage_perc and vllm:gpu_prefix_cache_{queries,hits} were deprecated in
// 0.9.2 for kv_cache_usage_perc / prefix_cache_{queries,hits}, hidden from 0.11 and removed in 0.12; a
// simulator imitating vLLM < 0.11 (--vllm-compat) serves both spellings.
import type { ServerResponse } from 'node:http';
import type { EngineMetricsSnapshot } from '../engine/engine-metrics.js';
import { polarSimFamilies } from './polar-sim-families.js';
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type MetricFamily } from './prometheus-text.js';

/** The KV block size of every GPU profile (vLLM's default, gpu-profiles.ts). */
const SIM_BLOCK_SIZE = 16;

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
    // An info gauge (always 1) whose labels are the CacheConfig; here the two that give the KV capacity.
    snapshot.capacity.kvCacheTokens !== null && {
      name: 'vllm:cache_config_info',
      type: 'gauge',
      help: 'Information of the LLMEngine CacheConfig',
      samples: [{ labels: { block_size: String(SIM_BLOCK_SIZE), engine: '0', num_gpu_blocks: String(Math.floor(snapshot.capacity.kvCacheTokens / SIM_BLOCK_SIZE)) }, value: 1 }],
    },
    {
      name: 'vllm:request_success',
      type: 'counter',
      help: 'Count of successfully processed requests.',
      samples: (['stop', 'length', 'abort'] as const).map((reason) => ({ labels: { ...labels, finished_reason: reason }, value: snapshot.finished[reason] })),
    },
  ];
  return renderPrometheus([...families.filter((family): family is MetricFamily => family !== false), ...polarSimFamilies(snapshot, labels)], options.createdSeconds);
}

/** Answers GET /metrics. */
export function sendVllmMetrics(res: ServerResponse, snapshot: EngineMetricsSnapshot, options: VllmMetricsOptions): void {
  const text = renderVllmMetrics(snapshot, options);
  res.writeHead(200, { 'content-type': PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
