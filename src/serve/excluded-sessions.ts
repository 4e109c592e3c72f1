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
  /**
   * Why the results leave it out: `infra-error`, `eval-error`, `cancelled` (ended without a reward; a tail cut
   * says `tail_cancelled` in status_reason), or `group-cut`: it ended normally, but its group lost a session to
   * the batch's tail cut (`tail: "cancel"`), so the group is not delivered.
   */
  reason: SessionSkipReason | 'group-cut';
}

/**
 * The ended sessions the results skip whatever the estimator. A never-graded session (a batch run with
 * `evaluate: false`) is not listed: `advantage=none` serves it with a null reward. Sessions still running are
 * not listed; neither is a session with no trainable call (it has no row, but its reward counts in its group).
 */
export function excludedSessions(runName: string, sessions: readonly PlannedSession[]): ExcludedSession[] {
  const ended = sessions.filter((session) => session.status !== null);
  const cut = new Set(ended.filter((session) => session.statusReason === 'tail_cancelled').map((session) => session.taskId));
  return planRunExport(runName, ended, { format: 'polar', advantage: 'none', minReward: 1, sample: 0 })
    .map((plan) => (plan.skip === null && cut.has(plan.session.taskId) ? { ...plan, skip: 'group-cut' as const } : plan))
    .filter((plan) => plan.skip !== null)
    .map(({ session, groupId, skip }) => ({
      session_id: session.id,
      group_id: groupId,
      instance_id: session.instanceId,
      sample_index: session.sampleIndex,
      status: session.status as string,
      status_reason: session.statusReason,
      reason: skip as SessionSkipReason | 'group-cut',
    }));
}
