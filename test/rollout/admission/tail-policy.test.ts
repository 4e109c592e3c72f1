// The APRIL-style tail plan: once the target's groups are complete, the sessions still going are cancelled
// (cancel), carried over (carry) or left to finish (wait); every session of the batch is accounted for.
import { describe, expect, it } from 'vitest';
import { planTail, TAIL_POLICIES, type TailSession } from '../../../src/rollout/admission/tail-policy.js';

/** Groups a..d of 3 sessions; a and c complete, b has one session left, d two. */
const batch: TailSession[] = [
  { id: 1, group: 'a', ended: true },
  { id: 2, group: 'b', ended: true },
  { id: 3, group: 'c', ended: true },
  { id: 4, group: 'd', ended: false },
  { id: 5, group: 'a', ended: true },
  { id: 6, group: 'b', ended: false },
  { id: 7, group: 'c', ended: true },
  { id: 8, group: 'd', ended: true },
  { id: 9, group: 'a', ended: true },
  { id: 10, group: 'b', ended: true },
  { id: 11, group: 'c', ended: true },
  { id: 12, group: 'd', ended: false },
];

describe('planTail', () => {
  it('before the target is reached nothing is cancelled or carried', () => {
    for (const policy of TAIL_POLICIES) expect(planTail(batch, 3, policy)).toEqual({ reached: false, complete: ['a', 'c'], cancel: [], carry: [] });
  });

  it('cancel: at the target, the sessions still going (in incomplete groups) are cancelled', () => {
    expect(planTail(batch, 2, 'cancel')).toEqual({ reached: true, complete: ['a', 'c'], cancel: [4, 6, 12], carry: [] });
  });

  it('carry: the same sessions go on past the target; wait: they are left to finish', () => {
    expect(planTail(batch, 2, 'carry')).toEqual({ reached: true, complete: ['a', 'c'], cancel: [], carry: [4, 6, 12] });
    expect(planTail(batch, 2, 'wait')).toEqual({ reached: true, complete: ['a', 'c'], cancel: [], carry: [] });
  });

  it('nothing is dropped: every session is in a complete group or in the tail, and ended sessions of incomplete groups are kept', () => {
    for (const policy of ['cancel', 'carry'] as const) {
      const plan = planTail(batch, 1, policy);
      const tail = new Set(policy === 'cancel' ? plan.cancel : plan.carry);
      const complete = new Set(plan.complete);
      for (const session of batch) expect(complete.has(session.group) || tail.has(session.id) || session.ended).toBe(true);
      expect(batch.filter((session) => !session.ended).every((session) => tail.has(session.id))).toBe(true);
      expect([...tail].every((id) => !batch.find((session) => session.id === id)!.ended)).toBe(true);
    }
  });

  it('a target of 0 counts as 1 (a step needs a group); a batch with every session ended has no tail', () => {
    expect(planTail(batch.map((session) => ({ ...session, ended: false })), 0, 'cancel').reached).toBe(false);
    expect(planTail(batch.map((session) => ({ ...session, ended: true })), 4, 'cancel')).toEqual({ reached: true, complete: ['a', 'b', 'c', 'd'], cancel: [], carry: [] });
  });
});
