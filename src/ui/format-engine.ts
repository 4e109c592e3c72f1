// One line about the engines for people: the dashboard's `engine` row, and the run summary of `polar rollout`
// and `polar runs show`. Effective utilisation first (processed tokens ÷ what the ceiling allows), then the
// engine's own queue and KV cache. Why utilisation is unknown (no ceiling, no metrics) is said where it was
// asked for (`polar runs show`, `--verbose`); a rollout's closing lines leave a figure out rather than explain it.
import type { RolloutEngineMetrics } from '../rollout/rollout-metrics.js';
import type { EngineUsage } from '../upstream/metrics/engine-usage.js';
import { formatCount, formatNumber, formatPercent } from './format-number.js';

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

/** A run's engine totals in one line, with why utilisation is unknown when it is (`polar runs show`, `--verbose`). */
export function formatEngineUsage(usage: EngineUsage): string {
  const figures = engineFigures(usage);
  if (usage.effectiveUtilisation !== null && usage.ceilingTokensPerSecond !== null) return `engine: ${figures.join(', ')}`;
  return `engine: ${figures.join(', ')}; effective GPU utilisation unknown: ${usage.unknown ?? 'no reason given'}`;
}

/**
 * The same line for a rollout's closing summary, or undefined when it would say nothing a person needs: no
 * utilisation figure, no preemption and an idle KV cache (the simulator without a GPU profile).
 */
export function briefEngineUsage(usage: EngineUsage): string | undefined {
  const known = usage.effectiveUtilisation !== null && usage.ceilingTokensPerSecond !== null;
  if (!known && !(usage.preemptions !== null && usage.preemptions > 0) && !(usage.peakKvUsage !== null && usage.peakKvUsage > 0)) return undefined;
  return `engine: ${engineFigures(usage).join(', ')}`;
}

function engineFigures(usage: EngineUsage): string[] {
  const figures = [usage.processedTokens === null ? 'tokens processed unknown' : `${formatNumber(usage.processedTokens, 0)} tokens processed`];
  if (usage.effectiveUtilisation !== null && usage.ceilingTokensPerSecond !== null) {
    figures.push(`effective GPU utilisation ${(usage.effectiveUtilisation * 100).toFixed(1)}% of ${formatNumber(usage.ceilingTokensPerSecond, 0)} tokens/s (${usage.ceilingSource ?? '?'})`);
  }
  figures.push(usage.preemptions === null ? 'preemptions unknown' : formatCount(usage.preemptions, 'preemption'), `peak KV usage ${percent(usage.peakKvUsage)}`);
  return figures;
}
