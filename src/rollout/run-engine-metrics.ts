// What a run's metrics events and its stored stats say about the engines: the live figures of the poller's
// snapshot next to the run's own window (tokens, preemptions, peak KV usage and utilisation since it started).
import type { EngineSnapshot } from '../upstream/metrics/engine-snapshot.js';
import type { EngineUsageReport } from '../upstream/metrics/engine-usage.js';
import type { RolloutEngineMetrics } from './rollout-metrics.js';

export function runEngineMetrics(snapshot: EngineSnapshot, usage: EngineUsageReport): RolloutEngineMetrics {
  const { total } = snapshot;
  return {
    replicas: snapshot.replicas.length,
    reporting: total.reporting,
    running: total.running,
    waiting: total.waiting,
    kvUsage: total.kvUsage,
    promptTokensPerSecond: total.promptTokensPerSecond,
    generationTokensPerSecond: total.generationTokensPerSecond,
    processedTokensPerSecond: total.processedTokensPerSecond,
    preemptions: usage.total.preemptions,
    processedTokens: usage.total.processedTokens,
    peakKvUsage: usage.total.peakKvUsage,
    effectiveUtilisation: usage.total.effectiveUtilisation,
    ceilingTokensPerSecond: usage.total.ceilingTokensPerSecond,
    ceilingSource: usage.total.ceilingSource,
    unknown: usage.total.unknown,
    unknownCode: usage.total.unknownCode,
  };
}
