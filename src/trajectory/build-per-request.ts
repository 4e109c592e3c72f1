// per_request builder: one row per trainable call, prompt = its prompt ids, response = its sampled ids.
import { trainableCallsInBuildOrder } from './check-trainable.js';
import { countRowTokens } from './count-row-tokens.js';
import { emptyDriftReport } from './measure-drift.js';
import type { TrajectoryCall } from './trajectory-call.js';
import type { SplitRecord, TrajectoryBuild, TrajectoryRow, TurnPlacement } from './trajectory-row.js';
import { assertTrajectoryFidelity } from './verify-trajectory.js';

/**
 * Builds one row per trainable call, in `seq` order. Non-trainable calls are listed in
 * `diagnostics.splits` with reason `not-trainable` and appear in no row.
 * Throws InternalError if the result is not token-faithful (a bug).
 */
export function buildPerRequest(sessionId: number, calls: readonly TrajectoryCall[]): TrajectoryBuild {
  const rows: TrajectoryRow[] = [];
  const turns: TurnPlacement[] = [];
  const splits: SplitRecord[] = [];
  for (const { call, promptTokenIds, tokenIds, logprobs, versions } of trainableCallsInBuildOrder(calls, splits)) {
    const rowIndex = rows.length;
    rows.push({
      sessionId,
      rowIndex,
      callIds: [call.id],
      promptIds: [...promptTokenIds],
      responseIds: [...tokenIds],
      lossMask: tokenIds.map(() => 1 as const),
      logprobs: [...logprobs],
      versions: versions === null ? null : [...versions],
      builder: 'per_request',
    });
    turns.push({ callId: call.id, rowIndex, responseOffset: 0, length: tokenIds.length });
  }
  const build: TrajectoryBuild = {
    rows,
    turns,
    diagnostics: {
      sessionId,
      builder: 'per_request',
      calls: calls.length,
      trainableCalls: turns.length,
      chains: rows.length,
      rows: rows.length,
      ...countRowTokens(rows),
      splits,
      drift: emptyDriftReport(),
    },
  };
  assertTrajectoryFidelity(calls, build);
  return build;
}
