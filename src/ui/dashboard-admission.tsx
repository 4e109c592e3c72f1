// The admission gate in front of the agent stage (shown once the scheduler reports it).
import { Text } from 'ink';
import type { RolloutAdmissionMetrics } from '../rollout/rollout-metrics.js';
import { admissionLine } from './format-admission.js';

export function DashboardAdmission({ admission }: { admission: RolloutAdmissionMetrics | undefined }) {
  if (admission === undefined) return null;
  return <Text wrap="truncate-end">{`admission   ${admissionLine(admission)}`}</Text>;
}
