// The most recent failed sessions, newest first, each with its reason on the line below.
import { Box, Text } from 'ink';
import type { DashboardFailure } from './dashboard-state.js';

export interface DashboardFailuresProps {
  failures: readonly DashboardFailure[];
}

export function DashboardFailures({ failures }: DashboardFailuresProps) {
  if (failures.length === 0) return <Text wrap="truncate-end">recent failures  none</Text>;
  return (
    <>
      <Text wrap="truncate-end">recent failures</Text>
      {failures.map((failure, index) => (
        <Box key={`${index}-${failure.sessionId}`} flexDirection="column">
          <Text wrap="truncate-end">
            {`  session ${failure.sessionId}  ${failure.instanceId}#${failure.sampleIndex}  `}
            <Text color="red">{failure.status}</Text>
          </Text>
          <Text wrap="truncate-end" dimColor>{`    ${failure.detail === null ? 'no reason given' : singleLine(failure.detail)}`}</Text>
        </Box>
      ))}
    </>
  );
}

function singleLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
