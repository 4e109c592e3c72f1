// The engine totals a run stored in its stats (`stats.engine.total`, written by run-job.ts), when it has them.
import type { EngineUsage } from '../upstream/metrics/engine-usage.js';

export function storedEngineUsage(stats: Record<string, unknown>): EngineUsage | undefined {
  const engine = stats['engine'] as { total?: unknown } | undefined;
  const total = engine?.total as Partial<EngineUsage> | undefined;
  return typeof total === 'object' && total !== null && typeof total.wallMs === 'number' ? (total as EngineUsage) : undefined;
}
