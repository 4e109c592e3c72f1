// The live rollout dashboard: props in, frame out (no I/O; mountDashboard renders it).
import { Box } from 'ink';
import { DashboardAdmission } from './dashboard-admission.js';
import { DashboardEngine } from './dashboard-engine.js';
import { DashboardFailures } from './dashboard-failures.js';
import { DashboardHeader } from './dashboard-header.js';
import { DashboardHosts } from './dashboard-hosts.js';
import { DashboardProgress } from './dashboard-progress.js';
import type { DashboardState } from './dashboard-state.js';
import { DashboardThroughput } from './dashboard-throughput.js';

/** Used when no width is given (and when the terminal does not report one). */
export const DEFAULT_DASHBOARD_WIDTH = 80;

export interface RolloutDashboardProps {
  state: DashboardState;
  /** Columns available; no line of the frame is longer. */
  width?: number;
}

export function RolloutDashboard({ state, width = DEFAULT_DASHBOARD_WIDTH }: RolloutDashboardProps) {
  return (
    <Box flexDirection="column" width={width}>
      <DashboardHeader run={state.run} image={state.image} finished={state.finished} />
      {state.run !== null && (
        <>
          <DashboardProgress state={state} width={width} />
          <DashboardThroughput metrics={state.metrics} finished={state.finished !== null} />
          <DashboardEngine engine={state.metrics?.engine} />
          <DashboardAdmission admission={state.metrics?.admission} />
          <DashboardHosts hosts={state.metrics?.hosts} />
          <DashboardFailures failures={state.recentFailures} />
        </>
      )}
    </Box>
  );
}
