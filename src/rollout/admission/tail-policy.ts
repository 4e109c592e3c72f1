// The long tail of a step, APRIL-style: a batch may start more groups than the trainer needs
// (`target_groups`); once that many groups are complete, the sessions still going are the slowest ones.
// `wait` lets them finish as today; `cancel` stops them (their calls aborted, never trained: status
// cancelled, reason tail_cancelled, listed under the batch's `excluded`); `carry` lets them run on across the
// trainer's step (with a keep pause their calls continue under the new weights, every token recording its
// version), and their groups are delivered when complete, after the target. Nothing is dropped silently:
// every session of the batch is either in a complete group, cancelled with its reason, or carried.

export type TailPolicy = 'wait' | 'cancel' | 'carry';

export const TAIL_POLICIES: readonly TailPolicy[] = ['wait', 'cancel', 'carry'];

/** What is known of a batch when a session ends: its complete groups are counted where they are recorded. */
export interface TailState {
  /** Groups whose sessions have all ended (polar serve: the batch's recorded groups). */
  completeGroups: number;
  /** The sessions not ended (all in groups not complete); polar serve reads them once the target is reached. */
  open: readonly number[];
}

export interface TailPlan {
  /** At least `targetGroups` groups are complete. */
  reached: boolean;
  /** cancel: the sessions to stop now (not ended, in a group not complete). */
  cancel: number[];
  /** carry: the sessions that go on past the target (not ended, in a group not complete). */
  carry: number[];
}

/** The target is reached: at least `targetGroups` groups complete (a target of 0 counts as 1: a step needs a group). */
export function targetReached(completeGroups: number, targetGroups: number): boolean {
  return completeGroups >= Math.max(1, targetGroups);
}

/** What to do with the batch's sessions now, given its target and tail policy. */
export function planTail(state: TailState, targetGroups: number, policy: TailPolicy): TailPlan {
  const reached = targetReached(state.completeGroups, targetGroups);
  const tail = reached ? [...state.open] : [];
  return { reached, cancel: policy === 'cancel' ? tail : [], carry: policy === 'carry' ? tail : [] };
}
