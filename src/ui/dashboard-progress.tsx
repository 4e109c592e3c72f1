// Progress of the run: a done/total bar, sessions per stage, and ended sessions per status.
import { Text } from 'ink';
import { countDoneSessions, DASHBOARD_STAGES, DASHBOARD_STATUSES, type DashboardState } from './dashboard-state.js';
import { formatProgressBar } from './format-progress-bar.js';

export interface DashboardProgressProps {
  state: DashboardState;
  width: number;
}

export function DashboardProgress({ state, width }: DashboardProgressProps) {
  const stages = DASHBOARD_STAGES.map((stage) => `${stage} ${state.stageCounts[stage]}`).join('  ');
  const ended = DASHBOARD_STATUSES.filter((status) => state.statusCounts[status] > 0)
    .map((status) => `${status} ${state.statusCounts[status]}`)
    .join('  ');
  return (
    <>
      <Text wrap="truncate-end">{formatProgressBar(countDoneSessions(state), state.totalSessions, width)}</Text>
      <Text wrap="truncate-end">{`stages  ${stages}`}</Text>
      <Text wrap="truncate-end">{`ended   ${ended || 'none yet'}`}</Text>
    </>
  );
}
