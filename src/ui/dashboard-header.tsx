// The dashboard's top lines: which run, which harness and upstream, where its data is, and whether it ended.
import { Text } from 'ink';
import type { DashboardState } from './dashboard-state.js';
import { formatDuration } from './format-number.js';

export interface DashboardHeaderProps {
  run: DashboardState['run'];
  image: DashboardState['image'];
  finished: DashboardState['finished'];
}

export function DashboardHeader({ run, image, finished }: DashboardHeaderProps) {
  if (run === null) {
    return (
      <>
        <Text wrap="truncate-end" bold>
          polar rollout: starting
        </Text>
        {image !== null && <Text wrap="truncate-end" dimColor>{`image ${image.image}: ${image.status}`}</Text>}
      </>
    );
  }
  return (
    <>
      <Text wrap="truncate-end">
        <Text bold>{`rollout ${run.runName}`}</Text>
        {` (run ${run.runId}${run.resumed ? ', resumed' : ''})  harness ${run.harness}  upstream ${run.upstream}`}
      </Text>
      <Text wrap="truncate-end" dimColor>{`data ${run.dbPath}  (polar runs show ${run.runName})`}</Text>
      {finished !== null && (
        <Text wrap="truncate-end" color="green">{`finished in ${formatDuration(finished.wallMs)}`}</Text>
      )}
    </>
  );
}
