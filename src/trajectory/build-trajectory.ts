// Picks a trajectory builder by name.
import { InternalError } from '../errors.js';
import { buildPerRequest } from './build-per-request.js';
import { buildPrefixMerging } from './build-prefix-merging.js';
import type { BuilderOptions, TrajectoryCall } from './trajectory-call.js';
import type { TrajectoryBuild, TrajectoryBuilderName } from './trajectory-row.js';

/** Builds one session's rows with the named builder. Throws InternalError on a fidelity bug. */
export function buildTrajectory(
  builder: TrajectoryBuilderName,
  sessionId: number,
  calls: readonly TrajectoryCall[],
  options?: Partial<BuilderOptions>,
): TrajectoryBuild {
  switch (builder) {
    case 'per_request':
      return buildPerRequest(sessionId, calls);
    case 'prefix_merging':
      return buildPrefixMerging(sessionId, calls, options);
    default: {
      const unknown: never = builder;
      throw new InternalError(`Unknown trajectory builder: ${String(unknown)}`);
    }
  }
}
