// The JSON of a batch (GET /v1/rollouts/{id}): status, session counts by stage and status, the sessions its
// results leave out (with their reasons), groups, callbacks.
import type { BatchRow } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';
import { batchCapture, effectiveTarget, type BatchRequest } from '../rollout/batch-request.js';
import type { CaptureMode } from '../rollout/batch-capture.js';
import { tailCancelledCount } from '../rollout/batch-tail.js';
import { excludedSessions, type ExcludedSession } from './excluded-sessions.js';

export interface BatchDescription {
  id: string;
  status: BatchRow['status'];
  status_reason: string | null;
  run: string;
  harness: string;
  policy_version: number;
  /** How the batch's calls are captured: token_in (one row per lineage) or chat. */
  capture: CaptureMode;
  created_at: string;
  finished_at: string | null;
  sessions: { total: number; done: number; queued: number; running: number; by_status: Record<string, number> };
  /** Ended sessions the results leave out of their groups, with the typed reason (infra errors first of all). */
  excluded: ExcludedSession[];
  groups: { total: number; completed: number };
  /** Complete groups that make the batch done for the trainer (the request's, capped at the groups; default all). */
  target_groups: number;
  tail: NonNullable<BatchRequest['tail']>;
  /** `target_groups` groups are complete (a tail cancel or carry decision was taken then). */
  target_reached: boolean;
  target_reached_at: string | null;
  /**
   * At the target: groups complete then, sessions the tail cut (cancelled, tail_cancelled) and sessions carried on
   * past it (their groups are delivered when complete, after the target). Zeros before the target and for tail wait.
   */
  tail_counts: { complete: number; cancelled: number; carried: number };
  callback: { url: string; delivered: number; failed: number; pending: number; last_error: string | null } | null;
}

export function describeBatch(store: Store, batch: BatchRow): BatchDescription {
  const request = batch.request as { harness?: string; tasks?: unknown[]; instanceIds?: unknown[]; samples?: number };
  const run = store.runs.get(batch.runName);
  // Summaries, not whole rows: a poll must not read every agent log and patch of the batch.
  const sessions = run === undefined ? [] : [...store.runs.iterateSessionSummaries(run.id)];
  const byStatus: Record<string, number> = {};
  let done = 0;
  let queued = 0;
  for (const session of sessions) {
    if (session.stage === 'done') done += 1;
    if (session.stage === 'queued') queued += 1;
    if (session.status !== null) byStatus[session.status] = (byStatus[session.status] ?? 0) + 1;
  }
  const planned = (request.tasks?.length ?? request.instanceIds?.length ?? 0) * (request.samples ?? 1);
  const total = run === undefined ? planned : sessions.length;
  const groups = store.batches.groups(batch.id);
  const tasks = run === undefined ? (request.tasks?.length ?? request.instanceIds?.length ?? 0) : store.runs.taskCount(run.id);
  const failedCallbacks = groups.filter((group) => group.callbackStatus === 'failed');
  const asked = batch.request as unknown as BatchRequest;
  // Before its run exists, a dataset batch without instance ids does not know its groups yet.
  const target = tasks > 0 ? effectiveTarget(asked, tasks) : (asked.targetGroups ?? 0);
  const decision = batch.tailDecision;
  // tail wait (no decision): reached when the target-th group was recorded.
  const reachedAt = decision?.reachedAt ?? (target > 0 ? groups[target - 1]?.completedAt : undefined) ?? null;
  return {
    id: batch.id,
    status: batch.status,
    status_reason: batch.statusReason,
    run: batch.runName,
    harness: request.harness ?? '',
    policy_version: batch.policyVersion,
    capture: batchCapture(asked),
    created_at: new Date(batch.createdAt).toISOString(),
    finished_at: batch.finishedAt === null ? null : new Date(batch.finishedAt).toISOString(),
    sessions: { total, done, queued: run === undefined ? planned : queued, running: total - done - (run === undefined ? planned : queued), by_status: byStatus },
    excluded: run === undefined ? [] : excludedSessions(batch.runName, sessions),
    groups: { total: tasks, completed: groups.length },
    target_groups: target,
    tail: asked.tail ?? 'wait',
    target_reached: reachedAt !== null,
    target_reached_at: reachedAt === null ? null : new Date(reachedAt).toISOString(),
    tail_counts: { complete: decision?.completeTaskIds.length ?? 0, cancelled: tailCancelledCount(sessions), carried: decision?.carried.length ?? 0 },
    callback:
      batch.callbackUrl === null
        ? null
        : {
            url: batch.callbackUrl,
            delivered: groups.filter((group) => group.callbackStatus === 'delivered').length,
            failed: failedCallbacks.length,
            pending: groups.filter((group) => group.callbackStatus === null).length,
            last_error: groups.findLast((group) => group.callbackLastError !== null)?.callbackLastError ?? null,
          },
  };
}
