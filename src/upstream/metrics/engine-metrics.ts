// One reading of an engine's /metrics in one model, whatever the family's metric names: each engine
// adapter maps its names into this (engines/vllm-metrics.ts, engines/sglang-metrics.ts). Every field is
// null when the server does not serve it: absent is never read as zero.

export interface EngineMetrics {
  /** Requests in the running batch (vllm:num_requests_running, sglang:num_running_reqs). */
  running: number | null;
  /** Requests queued for the batch (vllm:num_requests_waiting, sglang:num_queue_reqs). */
  waiting: number | null;
  /** 0..1 of the KV cache in use (vllm:kv_cache_usage_perc or the older gpu_cache_usage_perc, sglang:token_usage). */
  kvUsage: number | null;
  /** KV cache capacity in tokens, when served (sglang:max_total_num_tokens, polar_sim_kv_cache_capacity_tokens). */
  kvCapacityTokens: number | null;
  /**
   * Cumulative counters since the engine started (a drop means it restarted). `computedPromptTokens` is what
   * the engine says it computed of the prompts (vLLM `prompt_tokens_by_source{source="local_compute"}`,
   * SGLang `realtime_tokens_total{mode="prefill_compute"}`); without it the computed share is
   * `promptTokens - cachedPromptTokens` (prefix-cache hits the engine skipped).
   */
  counters: {
    promptTokens: number | null;
    computedPromptTokens: number | null;
    cachedPromptTokens: number | null;
    generationTokens: number | null;
    preemptions: number | null;
  };
  /** The simulator's GPU profile ceiling (polar_sim_gpu_ceiling_tokens_per_second); real engines have none. */
  profileCeilingTokensPerSecond: number | null;
}
