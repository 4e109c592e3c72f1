// What session admission reads from the inference engines: the running batch, the waiting queue, the KV
// cache, preemptions. One reading covers every replica of the model (summed; KV usage their mean). The
// seam to the engines' metrics is one reading at a time: `polar rollout` and `polar serve` take it from
// their /metrics poller (engineLoadFromSnapshot), the GPU benchmark from the simulated engine's snapshot.
import type { EngineMetricsSnapshot } from '../../sim/engine/engine-metrics.js';
import type { EngineSnapshot } from '../../upstream/metrics/engine-snapshot.js';

export interface EngineLoad {
  /** Requests in the running batch (vllm:num_requests_running). */
  running: number;
  /** Requests queued in the engine (vllm:num_requests_waiting). */
  waiting: number;
  /** 0..1 of the KV cache held by running requests (vllm:kv_cache_usage_perc). */
  kvUsage: number;
  /** KV cache capacity in tokens; null when the engine does not say (no KV-derived target then). */
  kvCapacityTokens: number | null;
  /** Preemptions counted since any fixed start (only its increase between readings matters). */
  preemptions: number;
  /** The engine's max_num_seqs; null when unknown (no cap from it). */
  maxNumSeqs: number | null;
  /** Generation paused or the engine asleep: the reading says nothing about load, admission keeps its state. */
  paused: boolean;
}

/** The simulator's engine snapshot as a load reading (the benchmark and the simulator's tests). */
export function engineLoadFromSimulator(snapshot: EngineMetricsSnapshot): EngineLoad {
  return {
    running: snapshot.running,
    waiting: snapshot.waiting,
    kvUsage: snapshot.kvCacheUsage,
    kvCapacityTokens: snapshot.capacity.kvCacheTokens,
    preemptions: snapshot.preemptions,
    maxNumSeqs: snapshot.capacity.maxNumSeqs,
    paused: snapshot.paused || snapshot.sleepLevel > 0,
  };
}

/**
 * polar's engine metrics poller's snapshot (every replica summed) as a load reading; null while the replicas'
 * gauges are unknown (no scrape answered yet, or no /metrics). `paused`: polar holds generation (a pause).
 */
export function engineLoadFromSnapshot(snapshot: EngineSnapshot, paused: boolean): EngineLoad | null {
  const { running, waiting, kvUsage, kvCapacityTokens, preemptions } = snapshot.total;
  if (running === null || waiting === null || kvUsage === null) return null;
  return { running, waiting, kvUsage, kvCapacityTokens, preemptions: preemptions ?? 0, maxNumSeqs: null, paused };
}
