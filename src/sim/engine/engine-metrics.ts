// A snapshot of an engine's state and counters, independent of any exposition format (vLLM or SGLang names).
import type { GenerationFinish } from './generation-types.js';

/** What the engine knows about the hardware it imitates (null without a GPU profile). */
export interface EngineCapacity {
  /** Profile name, e.g. `qwen3-8b-h100`. */
  profile: string | null;
  /** Tokens per second the engine processes when every step carries a full max_num_batched_tokens budget. */
  ceilingTokensPerSecond: number | null;
  /** KV cache capacity in tokens. */
  kvCacheTokens: number | null;
  maxNumSeqs: number | null;
  maxNumBatchedTokens: number | null;
}

export interface EngineMetricsSnapshot {
  capacity: EngineCapacity;
  /** Requests in the running batch / in the waiting queue (vllm:num_requests_running / _waiting). */
  running: number;
  waiting: number;
  /** 0..1 (vllm:kv_cache_usage_perc). */
  kvCacheUsage: number;
  /** Prompt tokens of requests that produced their first token (vllm:prompt_tokens). */
  promptTokens: number;
  /** Sampled tokens (vllm:generation_tokens). */
  generationTokens: number;
  preemptions: number;
  prefixCacheQueries: number;
  prefixCacheHits: number;
  /** Finished requests by how they ended (vllm:request_success{finished_reason}). */
  finished: Record<GenerationFinish, number>;
  /** Steps run, their total duration, and the tokens the model processed in them (prefill, recompute and decode). */
  steps: number;
  busyMs: number;
  processedTokens: number;
  weightVersion: number;
  paused: boolean;
  sleepLevel: 0 | 1 | 2;
  /** Requests that arrived while the engine slept (they wait for wakeUp). */
  arrivedWhileAsleep: number;
}
