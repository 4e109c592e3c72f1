// What session admission reads from the inference engines: the running batch, the waiting queue, the KV
// cache, preemptions, one reading per replica (each replica has its own controller). The seam to the
// engines' metrics is one set of readings at a time: `polar rollout` and `polar serve` take it from their
// /metrics poller (engineLoadsFromSnapshot), the GPU benchmark from the simulated engines' snapshots.
import type { EngineMetricsSnapshot } from '../../sim/engine/engine-metrics.js';
import type { EngineSnapshot } from '../../upstream/metrics/engine-snapshot.js';
import { normaliseUrl } from '../../upstream/normalise-url.js';

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
  /**
   * The engine's processing ceiling (tokens/s: a profile's or a calibration's prefill rate), which prices a
   * preemption's recomputation; null or absent when unknown (every preemption then counts as too costly).
   */
  ceilingTokensPerSecond?: number | null;
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
    ceilingTokensPerSecond: snapshot.capacity.ceilingTokensPerSecond,
  };
}

/**
 * polar's engine metrics poller's snapshot as one load reading per replica (by normalised URL, as admission and
 * the gateway key replicas); a replica whose gauges are
 * unknown (no scrape answered yet, or no /metrics) is left out. `paused`: polar holds generation (a pause).
 */
export function engineLoadsFromSnapshot(snapshot: EngineSnapshot, paused: boolean): Map<string, EngineLoad> {
  const loads = new Map<string, EngineLoad>();
  for (const replica of snapshot.replicas) {
    const { running, waiting, kvUsage, kvCapacityTokens, preemptions } = replica;
    if (running === null || waiting === null || kvUsage === null) continue;
    loads.set(normaliseUrl(replica.url), { running, waiting, kvUsage, kvCapacityTokens, preemptions: preemptions ?? 0, maxNumSeqs: null, paused, ceilingTokensPerSecond: replica.ceiling?.tokensPerSecond ?? null });
  }
  return loads;
}

/** Several replicas' readings as one (what the fleet shows): counts summed, KV usage weighted by capacity (else their mean). */
export function fleetLoad(loads: readonly EngineLoad[]): EngineLoad {
  const sum = (pick: (load: EngineLoad) => number): number => loads.reduce((total, load) => total + pick(load), 0);
  const capacities = loads.map((load) => load.kvCapacityTokens);
  const known = capacities.every((capacity): capacity is number => capacity !== null);
  const capacity = known ? sum((load) => load.kvCapacityTokens as number) : null;
  const seqs = loads.map((load) => load.maxNumSeqs);
  const ceilings = loads.map((load) => load.ceilingTokensPerSecond ?? null);
  return {
    running: sum((load) => load.running),
    waiting: sum((load) => load.waiting),
    kvUsage: capacity !== null && capacity > 0 ? sum((load) => load.kvUsage * (load.kvCapacityTokens as number)) / capacity : sum((load) => load.kvUsage) / Math.max(1, loads.length),
    kvCapacityTokens: capacity,
    preemptions: sum((load) => load.preemptions),
    maxNumSeqs: seqs.every((value): value is number => value !== null) ? sum((load) => load.maxNumSeqs as number) : null,
    paused: loads.every((load) => load.paused),
    ceilingTokensPerSecond: ceilings.every((value): value is number => value !== null) ? ceilings.reduce((total, value) => total + value, 0) : null,
  };
}
