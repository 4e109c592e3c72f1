// SGLang's /metrics in polar's EngineMetrics. Names from python/sglang/srt/metrics/collector.py (read at
// 00ae9c15): the scheduler's gauges (one series per scheduler that logs: attention-TP rank 0 of each DP rank),
// the tokenizer manager's counters (prompt / generation / cached tokens, added when a request finishes), and
// sglang:realtime_tokens_total{mode="prefill_compute"|"prefill_cache"|"decode"} (unified in PR #15747,
// 2025-12), added every log interval as the work happens: preferred when served.
// SGLang serves /metrics only when launched with --enable-metrics.
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { MetricSet } from '../metrics/metric-set.js';

const REALTIME = 'sglang:realtime_tokens_total';

function tokenCounters(set: MetricSet): Pick<EngineMetrics['counters'], 'promptTokens' | 'computedPromptTokens' | 'cachedPromptTokens' | 'generationTokens'> {
  const compute = set.sum(REALTIME, { mode: 'prefill_compute' });
  const cache = set.sum(REALTIME, { mode: 'prefill_cache' });
  const decode = set.sum(REALTIME, { mode: 'decode' });
  if (compute !== null && decode !== null) {
    return { promptTokens: compute + (cache ?? 0), computedPromptTokens: compute, cachedPromptTokens: cache, generationTokens: decode };
  }
  // Counted when each request finishes: right over a run, late for a long request while it runs.
  return {
    promptTokens: set.sum('sglang:prompt_tokens_total'),
    computedPromptTokens: null,
    cachedPromptTokens: set.sum('sglang:cached_tokens_total'),
    generationTokens: set.sum('sglang:generation_tokens_total'),
  };
}

export function readSglangMetrics(set: MetricSet): EngineMetrics {
  return {
    running: set.sum('sglang:num_running_reqs'),
    waiting: set.sum('sglang:num_queue_reqs'),
    kvUsage: set.mean('sglang:token_usage'),
    kvCapacityTokens: set.sum('sglang:max_total_num_tokens'),
    counters: { ...tokenCounters(set), preemptions: set.sum('sglang:num_retracted_requests_total') },
    profileCeilingTokensPerSecond: set.sum('polar_sim_gpu_ceiling_tokens_per_second'),
  };
}

/** SGLang serves no /metrics unless asked to. */
export const SGLANG_METRICS_ADVICE =
  'SGLang serves /metrics only when launched with --enable-metrics: restart it with `python -m sglang.launch_server … --enable-metrics` (`polar sim --engine sglang --enable-metrics true` imitates it).';
