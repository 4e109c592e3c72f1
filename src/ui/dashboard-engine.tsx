// The engines behind the run, from their /metrics (shown once the scheduler reports them).
import { Text } from 'ink';
import type { RolloutEngineMetrics } from '../rollout/rollout-metrics.js';
import { engineLine } from './format-engine.js';

export function DashboardEngine({ engine }: { engine: RolloutEngineMetrics | undefined }) {
  if (engine === undefined) return null;
  return <Text wrap="truncate-end">{`engine      ${engineLine(engine)}`}</Text>;
}
