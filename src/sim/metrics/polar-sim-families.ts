// The simulator's own series, served beside either family's names (vLLM or SGLang) and named polar_sim_* so
// nobody mistakes them for an engine's: the GPU profile's ceiling and KV capacity, and what the engine counted.
import type { EngineMetricsSnapshot } from '../engine/engine-metrics.js';
import type { MetricFamily } from './prometheus-text.js';

export function polarSimFamilies(snapshot: EngineMetricsSnapshot, labels: Record<string, string>): MetricFamily[] {
  const gauge = (name: string, help: string, value: number): MetricFamily => ({ name, type: 'gauge', help, samples: [{ labels, value }] });
  const counter = (name: string, help: string, value: number): MetricFamily => ({ name, type: 'counter', help, samples: [{ labels, value }] });
  const capacity = snapshot.capacity;
  const families: (MetricFamily | false)[] = [
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
  return families.filter((family): family is MetricFamily => family !== false);
}
