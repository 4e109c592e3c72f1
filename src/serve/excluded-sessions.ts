// The finished sessions of a batch its results leave out of their groups, each with the export's typed
// reason: the server's own list, so a trainer (polar_rollout.check) need not guess which samples are missing.
import { planRunExport, type PlannedSession, type SessionSkipReason } from '../export/plan-run-export.js';

export interface ExcludedSession {
  session_id: number;
  group_id: string;
  instance_id: string;
  sample_index: number;
  status: string;
  status_reason: string | null;
  /** Why the results leave it out: `infra-error`, `eval-error` or `cancelled` (ended without a reward). */
  reason: SessionSkipReason;
}

/**
 * The ended sessions the results skip whatever the estimator. A never-graded session (a batch run with
 * `evaluate: false`) is not listed: `advantage=none` serves it with a null reward. Sessions still running are
 * not listed; neither is a session with no trainable call (it has no row, but its reward counts in its group).
 */
export function excludedSessions(runName: string, sessions: readonly PlannedSession[]): ExcludedSession[] {
  const ended = sessions.filter((session) => session.status !== null);
  return planRunExport(runName, ended, { format: 'polar', advantage: 'none', minReward: 1, sample: 0 })
    .filter((plan) => plan.skip !== null)
    .map(({ session, groupId, skip }) => ({
      session_id: session.id,
      group_id: groupId,
      instance_id: session.instanceId,
      sample_index: session.sampleIndex,
      status: session.status as string,
      status_reason: session.statusReason,
      reason: skip as SessionSkipReason,
    }));
}
