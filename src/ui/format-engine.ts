// One line about the engines for people: the dashboard's `engine` row, and the run summary of `polar rollout`
// and `polar runs show`. Effective utilisation first (processed tokens ÷ what the ceiling allows), then the
// engine's own queue and KV cache; "unknown" with the reason when there is no ceiling or no metrics.
import type { RolloutEngineMetrics } from '../rollout/rollout-metrics.js';
import type { EngineUsage } from '../upstream/metrics/engine-usage.js';
import { formatNumber, formatPercent } from './format-number.js';

const count = (value: number | null): string => (value === null ? '-' : formatNumber(value, 0));
const percent = (value: number | null): string => (value === null ? '-' : formatPercent(value));

/** The dashboard's row: `util 41% of 20,784 tok/s  run 12  wait 3  kv 63%  preempt 0`. */
export function engineLine(engine: RolloutEngineMetrics): string {
  if (engine.reporting === 0) return `no /metrics from ${engine.replicas === 1 ? 'the replica' : `${engine.replicas} replicas`}${engine.unknown ? `: ${engine.unknown}` : ''}`;
  const utilisation =
    engine.effectiveUtilisation !== null && engine.ceilingTokensPerSecond !== null
      ? `util ${formatPercent(engine.effectiveUtilisation)} of ${formatNumber(engine.ceilingTokensPerSecond, 0)} tok/s`
      : `util ? (${engine.unknownCode === 'no-ceiling' ? 'no ceiling' : 'unknown'})`;
  return `${utilisation}  run ${count(engine.running)}  wait ${count(engine.waiting)}  kv ${percent(engine.kvUsage)}  preempt ${count(engine.preemptions)}`;
}

/** A run's engine totals in one line (`polar rollout`'s closing summary, `polar runs show`). */
export function formatEngineUsage(usage: EngineUsage): string {
  const tokens = usage.processedTokens === null ? 'tokens processed unknown' : `${formatNumber(usage.processedTokens, 0)} tokens processed`;
  const utilisation =
    usage.effectiveUtilisation !== null && usage.ceilingTokensPerSecond !== null
      ? `effective GPU utilisation ${(usage.effectiveUtilisation * 100).toFixed(1)}% of ${formatNumber(usage.ceilingTokensPerSecond, 0)} tokens/s (${usage.ceilingSource ?? '?'})`
      : `effective GPU utilisation unknown (${usage.unknown ?? 'no reason given'})`;
  return `engine: ${tokens}, ${utilisation}, ${count(usage.preemptions)} preemption(s), peak KV usage ${percent(usage.peakKvUsage)}`;
}
