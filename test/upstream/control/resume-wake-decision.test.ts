// Whether `polar engine resume` wakes a replica: the flag, then a server that cannot sleep, then what the server
// says where it is unambiguous, then what polar recorded, and a refusal when nothing can tell paused from asleep.
import { describe, expect, it } from 'vitest';
import { decideAsleep, type WakeEvidence } from '../../../src/upstream/control/resume-wake-decision.js';

const base: WakeEvidence = { url: 'http://e/v1', flag: undefined, sleepFeature: 'yes', live: { paused: true, sleeping: true, weightLabel: null }, asked: undefined };
const asked = (sleeping: 1 | 2 | null, paused: 'keep' | 'abort' | null = null) => ({ asked: { paused, sleeping, at: 0 } });

describe('decideAsleep', () => {
  it.each([
    ['--wake', { flag: true }, true],
    ['--no-wake', { flag: false, ...asked(2) }, false],
    ['a server without sleep mode is awake whatever it says', { sleepFeature: 'no' as const }, false],
    ['/is_sleeping false', { live: { paused: true, sleeping: false, weightLabel: null }, ...asked(1) }, false],
    ['/is_sleeping true, /is_paused false: only the executor explains it', { live: { paused: false, sleeping: true, weightLabel: null } }, true],
    ['paused and "sleeping" (vLLM): polar put it to sleep', asked(2), true],
    ['paused and "sleeping" (vLLM): polar only paused it', asked(null, 'keep'), false],
    ['SGLang says nothing, nothing recorded: awake', { live: { paused: null, sleeping: null, weightLabel: '3' } }, false],
    ['SGLang says nothing, polar released its memory: asleep', { live: { paused: null, sleeping: null, weightLabel: '3' }, ...asked(1) }, true],
  ] as [string, Partial<WakeEvidence>, boolean][])('%s', (_name, evidence, asleep) => {
    expect(decideAsleep({ ...base, ...evidence }).asleep).toBe(asleep);
  });

  it('keeps the recorded level', () => {
    expect(decideAsleep({ ...base, ...asked(2) })).toMatchObject({ asleep: true, level: 2 });
  });

  it('refuses when the server reads paused-and-sleeping and polar recorded nothing', () => {
    expect(() => decideAsleep(base)).toThrow(/maybe asleep/);
  });
});
