// The admission gate in front of the agent stage (shown once the scheduler reports it); with several engine
// replicas, a line per replica under it.
import { Box, Text } from 'ink';
import type { RolloutAdmissionMetrics } from '../rollout/rollout-metrics.js';
import { admissionLine, replicaAdmissionLine } from './format-admission.js';

export function DashboardAdmission({ admission }: { admission: RolloutAdmissionMetrics | undefined }) {
  if (admission === undefined) return null;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate-end">{`admission   ${admissionLine(admission)}`}</Text>
      {(admission.replicas ?? []).map((replica) => (
        <Text key={replica.replica} wrap="truncate-end">{`  replica   ${replicaAdmissionLine(replica)}`}</Text>
      ))}
    </Box>
  );
}
