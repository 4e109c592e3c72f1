// A serve batch's tail (`target_groups` + `tail`, planned by admission/tail-policy.ts): the decision taken
// when its target is reached — saved before anything acts on it, so a restarted server keeps it — and, for
// `tail: "cancel"`, the sessions it stopped marked `cancelled` / `tail_cancelled` (never trained, listed as
// excluded). Groups that lost a session to the cut are never recorded (a group is delivered only when every
// one of its sessions ended without being cancelled), so nothing of them is delivered either.
import type { BatchRow, TailDecision } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';
import { planTail } from './admission/tail-policy.js';
import { effectiveTarget, type BatchRequest } from './batch-request.js';

/** A batch's target and tail as the engine applies them (`target` null: every group, nothing to decide). */
export interface BatchTarget {
  target: number;
  tail: NonNullable<BatchRequest['tail']>;
}

/** The batch's target over its run's tasks; null while the run does not exist yet. */
export function batchTarget(store: Store, batch: BatchRow): BatchTarget | null {
  const request = batch.request as unknown as BatchRequest;
  const run = store.runs.get(batch.runName);
  if (run === undefined) return null;
  return { target: effectiveTarget(request, store.runs.tasks(run.id).length), tail: request.tail ?? 'wait' };
}

/**
 * The batch's tail decision: the one saved before, else, for a batch with tail cancel or carry whose target is
 * reached now, a new one (saved before it is returned). Null while the target is not reached, or for tail wait.
 */
export function decideTail(store: Store, batch: BatchRow, now = Date.now()): TailDecision | null {
  const saved = store.batches.get(batch.id)?.tailDecision ?? null;
  if (saved !== null) return saved;
  const request = batch.request as unknown as BatchRequest;
  const policy = request.tail ?? 'wait';
  if (policy === 'wait' || request.targetGroups === undefined) return null;
  // Cheap first (this runs at every session end): fewer groups recorded than asked means not reached (a target
  // capped at a smaller dataset is every group, which leaves no tail to act on).
  if (store.batches.groups(batch.id).length < request.targetGroups) return null;
  const run = store.runs.get(batch.runName);
  const target = batchTarget(store, batch);
  if (run === undefined || target === null) return null;
  // A session counts as ended for its group as a recorded group sees it: done, with a status other than cancelled.
  const sessions = [...store.runs.iterateSessionSummaries(run.id)].map((session) => ({
    id: session.id,
    group: String(session.taskId),
    ended: session.stage === 'done' && session.status !== null && session.status !== 'cancelled',
  }));
  const plan = planTail(sessions, target.target, policy);
  if (!plan.reached) return null;
  const decision: TailDecision = { policy, reachedAt: now, completeTaskIds: plan.complete.map(Number), cancelled: plan.cancel, carried: plan.carry };
  store.batches.setTailDecision(batch.id, decision);
  return store.batches.get(batch.id)?.tailDecision ?? decision;
}

/**
 * tail cancel, once the batch's run has stopped: every session that has not ended, and every session the
 * decision cut that the stop ended as cancelled (`interrupted`, as an agent stopped mid-run ends), is marked
 * cancelled with reason tail_cancelled. A session of the decision's list that ended otherwise meanwhile
 * (it completed before the stop reached it) keeps its status. Returns how many sessions are so marked.
 */
export function cutTail(store: Store, batch: BatchRow, decision: TailDecision, target: number): number {
  const run = store.runs.get(batch.runName);
  if (run === undefined) return 0;
  const cutAtTarget = new Set(decision.cancelled);
  const outcome = { status: 'cancelled', reason: 'tail_cancelled', detail: `batch ${batch.id} reached its target of ${target} complete groups (tail: cancel)` } as const;
  let cut = 0;
  for (const session of store.runs.iterateSessionSummaries(run.id)) {
    const ended = session.stage === 'done' && session.status !== null;
    if (!ended || (session.status === 'cancelled' && session.statusReason !== 'tail_cancelled' && cutAtTarget.has(session.id))) {
      store.runs.finishSession(session.id, outcome);
      cut += 1;
    } else if (session.statusReason === 'tail_cancelled') {
      cut += 1;
    }
  }
  return cut;
}

/** Sessions marked tail_cancelled (the batch's tail cut). */
export function tailCancelledCount(sessions: Iterable<{ statusReason: string | null }>): number {
  let count = 0;
  for (const session of sessions) if (session.statusReason === 'tail_cancelled') count += 1;
  return count;
}
