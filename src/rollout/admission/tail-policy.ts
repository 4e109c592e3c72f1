// The long tail of a step, APRIL-style: a batch may start more groups than the trainer needs
// (`target_groups`); once that many groups are complete, the sessions still going are the slowest ones.
// `wait` lets them finish as today; `cancel` stops them (their calls aborted, never trained: status
// cancelled, reason tail_cancelled, listed under the batch's `excluded`); `carry` lets them run on across the
// trainer's step (with a keep pause their calls continue under the new weights, every token recording its
// version), and their groups are delivered when complete, after the target. Nothing is dropped silently:
// every session of the batch is either in a complete group, cancelled with its reason, or carried.

export type TailPolicy = 'wait' | 'cancel' | 'carry';

export const TAIL_POLICIES: readonly TailPolicy[] = ['wait', 'cancel', 'carry'];

export interface TailSession {
  id: number;
  /** The session's GRPO group (task). */
  group: string;
  /** The session has ended (any terminal status). */
  ended: boolean;
}

export interface TailPlan {
  /** At least `targetGroups` groups are complete. */
  reached: boolean;
  /** Groups whose sessions have all ended, in first-appearance order. */
  complete: string[];
  /** cancel: the sessions to stop now (not ended, in a group not complete). */
  cancel: number[];
  /** carry: the sessions that go on past the target (not ended, in a group not complete). */
  carry: number[];
}

/** What to do with the batch's sessions now, given its target and tail policy. */
export function planTail(sessions: readonly TailSession[], targetGroups: number, policy: TailPolicy): TailPlan {
  const groups = new Map<string, TailSession[]>();
  for (const session of sessions) groups.set(session.group, [...(groups.get(session.group) ?? []), session]);
  const complete = [...groups].filter(([, members]) => members.every((member) => member.ended)).map(([group]) => group);
  const reached = complete.length >= Math.max(1, targetGroups);
  const tail = reached ? sessions.filter((session) => !session.ended).map((session) => session.id) : [];
  return { reached, complete, cancel: policy === 'cancel' ? tail : [], carry: policy === 'carry' ? tail : [] };
}
