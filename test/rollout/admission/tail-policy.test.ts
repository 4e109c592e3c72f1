// The APRIL-style tail plan: once the target's groups are complete, the sessions still going are cancelled
// (cancel), carried over (carry) or left to finish (wait); every session of the batch is accounted for. The plan
// is given what the batch already knows (its complete groups counted, its open sessions), never recounts them.
import { describe, expect, it } from 'vitest';
import { planTail, TAIL_POLICIES, targetReached, type TailState } from '../../../src/rollout/admission/tail-policy.js';

/** Groups a..d of 3 sessions (ids 1..12); a and c complete, b has one session left (6), d two (4, 12). */
const sessions = [
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
const batch: TailState = { completeGroups: 2, open: [4, 6, 12] };

describe('planTail', () => {
  it('before the target is reached nothing is cancelled or carried', () => {
    for (const policy of TAIL_POLICIES) expect(planTail(batch, 3, policy)).toEqual({ reached: false, cancel: [], carry: [] });
  });

  it('cancel: at the target, the sessions still going (in incomplete groups) are cancelled', () => {
    expect(planTail(batch, 2, 'cancel')).toEqual({ reached: true, cancel: [4, 6, 12], carry: [] });
  });

  it('carry: the same sessions go on past the target; wait: they are left to finish', () => {
    expect(planTail(batch, 2, 'carry')).toEqual({ reached: true, cancel: [], carry: [4, 6, 12] });
    expect(planTail(batch, 2, 'wait')).toEqual({ reached: true, cancel: [], carry: [] });
  });

  it('nothing is dropped: every session is in a complete group or in the tail, and ended sessions of incomplete groups are kept', () => {
    const complete = new Set(['a', 'c']);
    for (const policy of ['cancel', 'carry'] as const) {
      const plan = planTail(batch, 1, policy);
      const tail = new Set(policy === 'cancel' ? plan.cancel : plan.carry);
      for (const session of sessions) expect(complete.has(session.group) || tail.has(session.id) || session.ended).toBe(true);
      expect(sessions.filter((session) => !session.ended).every((session) => tail.has(session.id))).toBe(true);
      expect([...tail].every((id) => !sessions.find((session) => session.id === id)!.ended)).toBe(true);
    }
  });

  it('a target of 0 counts as 1 (a step needs a group); a batch with every session ended has no tail', () => {
    expect(planTail({ completeGroups: 0, open: sessions.map((session) => session.id) }, 0, 'cancel').reached).toBe(false);
    expect(targetReached(0, 0)).toBe(false);
    expect(targetReached(1, 0)).toBe(true);
    expect(planTail({ completeGroups: 4, open: [] }, 4, 'cancel')).toEqual({ reached: true, cancel: [], carry: [] });
  });
});
