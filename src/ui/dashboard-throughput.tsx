// Throughput and rewards from the latest metrics snapshot.
import { Text } from 'ink';
import type { RolloutMetricsEvent } from '../rollout/rollout-metrics.js';
import { formatNumber, formatPercent } from './format-number.js';

export interface DashboardThroughputProps {
  metrics: RolloutMetricsEvent | null;
  /** The run has ended (so no metrics will come any more). */
  finished: boolean;
}

export function DashboardThroughput({ metrics, finished }: DashboardThroughputProps) {
  if (metrics === null) {
    return (
      <Text wrap="truncate-end" dimColor>
        {`throughput  ${finished ? 'no metrics were reported' : 'waiting for the first metrics'}`}
      </Text>
    );
  }
  const { sessionsPerMinute, tokensPerSecond, modelBusyFraction, meanInFlight, rewards } = metrics;
  const rewardText = rewards.n === 0 || rewards.mean === null ? 'none yet' : `${rewards.n} graded, mean ${rewards.mean.toFixed(3)}`;
  return (
    <>
      <Text wrap="truncate-end">
        {`throughput  ${formatNumber(sessionsPerMinute)} sessions/min  ${formatNumber(tokensPerSecond)} tokens/s  ` +
          `model busy ${formatPercent(modelBusyFraction)}  in flight ${formatNumber(meanInFlight)}`}
      </Text>
      <Text wrap="truncate-end">{`rewards     ${rewardText}`}</Text>
    </>
  );
}
