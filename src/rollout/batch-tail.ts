// A serve batch's tail (`target_groups` + `tail`, planned by admission/tail-policy.ts): the decision taken
// when its target is reached — saved before anything acts on it, so a restarted server keeps it — and, for
// `tail: "cancel"`, the sessions it stopped marked `cancelled` / `tail_cancelled` (never trained, listed as
// excluded). Groups that lost a session to the cut are never recorded (a group is delivered only when every
// one of its sessions ended without being cancelled), so nothing of them is delivered either.
import type { BatchRow, TailDecision } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';
import { planTail, targetReached, type TailPolicy } from './admission/tail-policy.js';
import type { BatchRequest } from './batch-request.js';

/** A batch's target and tail as the engine holds them while the batch is active: read once from its row. */
export interface BatchTail {
  batchId: string;
  policy: TailPolicy;
  /** The request's target_groups; undefined: every group, nothing to decide. */
  targetGroups: number | undefined;
  /** The decision taken: set here only once it is saved in the store; null before. */
  decision: TailDecision | null;
}

/** The tail of a batch being activated (new, or restored after a restart with the decision it took). */
export function loadBatchTail(batch: BatchRow): BatchTail {
  const request = batch.request as unknown as BatchRequest;
  return { batchId: batch.id, policy: request.tail ?? 'wait', targetGroups: request.targetGroups, decision: batch.tailDecision };
}

/**
 * The batch's tail decision: the one taken before, else, for tail cancel or carry whose target is reached now,
 * a new one, saved in the store before it is kept on `tail` and returned (a restart keeps it). Null while the
 * target is not reached, and for tail wait. This runs at every session end: it counts the batch's recorded
 * groups and reads nothing else until the target is reached.
 */
export function decideTail(store: Store, tail: BatchTail, runId: number, now = Date.now()): TailDecision | null {
  if (tail.decision !== null) return tail.decision;
  if (tail.policy === 'wait' || tail.targetGroups === undefined) return null;
  // The recorded groups are the complete ones (the engine records a session's group before it asks). A target
  // capped at a smaller dataset is every group and is never reached here: it leaves no tail to act on.
  const completeGroups = store.batches.groupCount(tail.batchId);
  if (!targetReached(completeGroups, tail.targetGroups)) return null;
  const plan = planTail({ completeGroups, open: store.runs.openSessionIds(runId) }, tail.targetGroups, tail.policy);
  const completeTaskIds = store.batches.groups(tail.batchId).map((group) => group.taskId).sort((a, b) => a - b);
  const decision: TailDecision = { policy: tail.policy, reachedAt: now, completeTaskIds, cancelled: plan.cancel, carried: plan.carry };
  // A decision saved before (by an earlier process) stays, and is the one acted on.
  tail.decision = store.batches.setTailDecision(tail.batchId, decision) ? decision : (store.batches.tailDecision(tail.batchId) ?? decision);
  return tail.decision;
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
