// vLLM's /metrics in polar's EngineMetrics. Names from vllm/v1/metrics/loggers.py (PrometheusStatLogger, read at
// 005a810b) and stats.py (read at 28ed1fb8: prompt tokens are counted when a request's prefill yields its first
// token, at full prompt length; prefix-cache queries/hits when the scheduler looks a waiting request up).
// vllm:gpu_cache_usage_perc / gpu_prefix_cache_hits are the spellings deprecated in 0.9.2 and removed in 0.12.
// vllm:prompt_tokens_by_source{source="local_compute"} and vllm:prompt_tokens_cached came with PR #33290
// (merged 2026-02, about 0.16): what the engine computed, counted where the prompt tokens are.
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { MetricSet } from '../metrics/metric-set.js';

/** KV capacity from vllm:cache_config_info{num_gpu_blocks, block_size} (an info gauge), summed over engines. */
function kvCapacity(set: MetricSet): number | null {
  let total: number | null = null;
  for (const sample of set.select('vllm:cache_config_info')) {
    const blocks = Number(sample.labels['num_gpu_blocks']);
    const size = Number(sample.labels['block_size']);
    if (Number.isFinite(blocks) && Number.isFinite(size) && blocks > 0 && size > 0) total = (total ?? 0) + blocks * size;
  }
  return total ?? set.sum('polar_sim_kv_cache_capacity_tokens');
}

export function readVllmMetrics(set: MetricSet): EngineMetrics {
  return {
    running: set.sum('vllm:num_requests_running'),
    waiting: set.sum('vllm:num_requests_waiting'),
    kvUsage: set.mean('vllm:kv_cache_usage_perc') ?? set.mean('vllm:gpu_cache_usage_perc'),
    kvCapacityTokens: kvCapacity(set),
    counters: {
      promptTokens: set.sum('vllm:prompt_tokens_total'),
      computedPromptTokens: set.sum('vllm:prompt_tokens_by_source_total', { source: 'local_compute' }),
      // prompt_tokens_cached is counted with the prompt tokens; older servers only have the scheduler's hits
      // (which older schedulers count again each step a request waits for blocks: an overestimate under KV pressure).
      cachedPromptTokens: set.sumFirst(['vllm:prompt_tokens_cached_total', 'vllm:prefix_cache_hits_total', 'vllm:gpu_prefix_cache_hits_total']),
      generationTokens: set.sum('vllm:generation_tokens_total'),
      preemptions: set.sum('vllm:num_preemptions_total'),
    },
    profileCeilingTokensPerSecond: set.sum('polar_sim_gpu_ceiling_tokens_per_second'),
  };
}

/** How to get a vLLM server's metrics when /metrics does not answer. */
export const VLLM_METRICS_ADVICE =
  'vLLM serves /metrics at the server root unless a proxy hides it; check that GET <server>/metrics answers; a server started with --disable-log-stats has no vllm:* series in it.';
