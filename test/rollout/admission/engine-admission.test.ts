// The engine-driven admission controller: its target comes from what the engine reports (KV capacity over the
// context a session holds over its life, capped by max_num_seqs), a guard keeps sessions that aged together from
// overfilling the cache, its gate closes on a queue seen twice, costly preemption or KV pressure and opens only
// below kvLow (hysteresis), and its feedback scale backs off when preemption costs more than its budget and ramps
// when calm.
import { describe, expect, it } from 'vitest';
import { EngineAdmission, PRIOR_WEIGHT } from '../../../src/rollout/admission/engine-admission.js';
import type { EngineLoad } from '../../../src/rollout/admission/engine-load.js';

const load = (over: Partial<EngineLoad> = {}): EngineLoad => ({
  running: 0,
  waiting: 0,
  kvUsage: 0,
  kvCapacityTokens: 100_000,
  preemptions: 0,
  maxNumSeqs: 256,
  paused: false,
  ...over,
});

describe('target', () => {
  it('starts at the initial target (capped by max_num_seqs) before the engine says its KV capacity', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, initialTarget: 4 });
    expect(admission.state()).toMatchObject({ target: 4, targetSource: 'initial', hold: null, load: null });
    admission.observe(load({ kvCapacityTokens: null, maxNumSeqs: 2 }), 0);
    expect(admission.state()).toMatchObject({ target: 2, targetSource: 'initial' });
  });

  it('is kvHigh x KV capacity over the context sessions hold: half the context window until sessions end, then their mean held context', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, kvHigh: 0.9 });
    admission.observe(load(), 0);
    expect(admission.state()).toMatchObject({ target: 9, targetSource: 'kv-cache', heldContext: 10_000, typicalContext: 20_000, endedSessions: 0 });
    // Sessions that grew to 20k and 30k held 10k and 15k on average: the cache holds 90k / 12.5k of them, not 90k / 25k.
    admission.sessionEnded({ held: 10_000, final: 20_000 });
    admission.sessionEnded({ held: 15_000, final: 30_000 });
    admission.sessionEnded(0);
    expect(admission.state()).toMatchObject({ target: 7, heldContext: 12_500, typicalContext: 25_000, endedSessions: 2 });
  });

  it('starts from what earlier sessions on the model held, counted as at most PRIOR_WEIGHT ended sessions', () => {
    // 3 earlier sessions (held 10 000 on average) seed the estimate instead of half the 40 000-token context window.
    const prior = [5_000, 10_000, 15_000].map((held) => ({ held, final: 2 * held }));
    const admission = new EngineAdmission({ contextWindow: 40_000, kvHigh: 0.9, priorContexts: [...prior, { held: 0, final: 0 }] });
    admission.observe(load(), 0);
    expect(admission.state()).toMatchObject({ target: 9, heldContext: 10_000, typicalContext: 20_000, endedSessions: 0, priorSessions: 3 });
    // This run's sessions weigh in from the first: (3 x 10 000 + 2 000) / 4.
    admission.sessionEnded({ held: 2_000, final: 5_000 });
    expect(admission.state().heldContext).toBe(8_000);
    // Many earlier sessions still count as PRIOR_WEIGHT: 40 of 10 000, then one of 60 000 → (4 x 10 000 + 60 000) / 5.
    const many = new EngineAdmission({ contextWindow: 40_000, priorContexts: Array.from({ length: 40 }, () => ({ held: 10_000, final: 10_000 })) });
    many.sessionEnded(60_000);
    expect(PRIOR_WEIGHT).toBe(4);
    expect(many.state()).toMatchObject({ heldContext: 20_000, endedSessions: 1, priorSessions: 40 });
    // No earlier sessions: half the context window.
    expect(new EngineAdmission({ contextWindow: 40_000, priorContexts: [] }).state()).toMatchObject({ heldContext: 20_000, typicalContext: 40_000, priorSessions: 0 });
  });

  it('follows the engine: a larger KV cache gives a larger target, max_num_seqs caps it', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000 });
    admission.observe(load({ kvCapacityTokens: 1_000_000 }), 0);
    expect(admission.target()).toBe(90);
    admission.observe(load({ kvCapacityTokens: 1_000_000, maxNumSeqs: 32 }), 1_000);
    expect(admission.state()).toMatchObject({ target: 32, targetSource: 'max-num-seqs' });
  });

  it('admits more sessions than fit in their model turn by the duty cycle measured (running + waiting over those that called), at most 1 / minDuty times', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, minDuty: 0.25, rampMs: 10_000_000 });
    admission.observe(load(), 0);
    expect(admission.state()).toMatchObject({ target: 9, duty: 1 });
    // Half of 10 admitted sessions have a call in the engine (4 running, 1 waiting), reading after reading.
    for (let t = 1; t <= 60; t++) admission.observe(load({ running: 4, waiting: t % 2 }), t * 1_000, 10);
    expect(admission.state().duty).toBeCloseTo(0.45, 1);
    expect(admission.target()).toBeGreaterThanOrEqual(19);
    expect(admission.target()).toBeLessThanOrEqual(20);
    // Nobody in the engine: the duty falls, the target stops at 4x what the cache holds.
    for (let t = 61; t <= 200; t++) admission.observe(load(), t * 1_000, 10);
    expect(admission.state().duty).toBeLessThan(0.05);
    expect(admission.target()).toBe(36);
    // max_num_seqs caps the sessions in their model turn: admitted up to max_num_seqs / duty.
    admission.observe(load({ maxNumSeqs: 5 }), 201_000, 10);
    expect(admission.state()).toMatchObject({ target: 20, targetSource: 'max-num-seqs' });
  });

  it('mayStart: fewer than the target active and the gate open', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000 });
    admission.observe(load(), 0);
    expect(admission.mayStart(8)).toBe(true);
    expect(admission.mayStart(9)).toBe(false);
    admission.observe(load({ kvUsage: 0.95 }), 1_000);
    expect(admission.mayStart(0)).toBe(false);
  });

  it('refuses thresholds that make no gate', () => {
    expect(() => new EngineAdmission({ kvLow: 0.9, kvHigh: 0.8 })).toThrow(RangeError);
    expect(() => new EngineAdmission({ kvHigh: 1.2 })).toThrow(RangeError);
  });
});

describe('gate with hysteresis', () => {
  it('closes at kvHigh and opens only once KV usage is back at or below kvLow', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, kvHigh: 0.9, kvLow: 0.75 });
    admission.observe(load({ kvUsage: 0.5 }), 0);
    expect(admission.state().hold).toBeNull();
    admission.observe(load({ kvUsage: 0.92 }), 1_000);
    expect(admission.state().hold).toBe('kv-high');
    admission.observe(load({ kvUsage: 0.8 }), 2_000);
    expect(admission.state().hold).toBe('kv-high');
    admission.observe(load({ kvUsage: 0.75 }), 3_000);
    expect(admission.state().hold).toBeNull();
    expect(admission.state().closings).toBe(1);
  });

  it('closes when the engine queues requests in two readings in a row, not on one (a request waits one step on arrival)', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000 });
    admission.observe(load({ waiting: 3 }), 0);
    expect(admission.state().hold).toBeNull();
    admission.observe(load({ waiting: 0 }), 1_000);
    admission.observe(load({ waiting: 2 }), 2_000);
    expect(admission.state().hold).toBeNull();
    admission.observe(load({ waiting: 1 }), 3_000);
    expect(admission.state().hold).toBe('waiting');
    // Still waiting requests: stays closed even with a low KV usage.
    admission.observe(load({ waiting: 1, kvUsage: 0.1 }), 4_000);
    expect(admission.state().hold).toBe('waiting');
    admission.observe(load({ waiting: 0, kvUsage: 0.1 }), 5_000);
    expect(admission.state().hold).toBeNull();
  });

  it('closes on a preemption and backs the scale off once per overload episode', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, backoff: 0.5 });
    admission.observe(load({ preemptions: 7 }), 0);
    expect(admission.state().hold).toBeNull();
    expect(admission.target()).toBe(9);
    admission.observe(load({ preemptions: 8, kvUsage: 0.85 }), 1_000);
    // 0.5 x 0.9 x 100 000 / 10 000 = 4.5, rounded.
    expect(admission.state()).toMatchObject({ hold: 'preempted', scale: 0.5, target: 5 });
    admission.observe(load({ preemptions: 9, kvUsage: 0.85 }), 2_000);
    expect(admission.state().scale).toBe(0.5);
    admission.observe(load({ preemptions: 9, kvUsage: 0.8 }), 3_000);
    expect(admission.state().hold).toBe('preempted');
    admission.observe(load({ preemptions: 9, kvUsage: 0.7 }), 4_000);
    expect(admission.state().hold).toBeNull();
  });

  it('never backs off below half the KV-derived target', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, backoff: 0.1 });
    admission.observe(load(), 0);
    for (let i = 1; i < 10; i++) {
      admission.observe(load({ preemptions: i }), i * 2_000 - 1_000);
      admission.observe(load({ preemptions: i }), i * 2_000);
    }
    expect(admission.state().scale).toBe(0.5);
    expect(admission.target()).toBe(5);
  });

  it('ramps the scale up after each calm rampMs, and not while KV usage is above kvLow', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, rampMs: 10_000, rampStep: 0.5 });
    for (let t = 0; t <= 20_000; t += 1_000) admission.observe(load({ kvUsage: 0.8 }), t);
    expect(admission.state().scale).toBe(1);
    for (let t = 21_000; t <= 41_000; t += 1_000) admission.observe(load({ kvUsage: 0.5 }), t);
    expect(admission.state().scale).toBe(2);
    expect(admission.target()).toBe(18);
  });

  it('does not ramp while the admitted sessions, projected to their peak, would overflow the cache below kvLow', () => {
    // Held 10 000, final 20 000: five sessions that started together (no call yet) will hold 5 x 20 000 = the whole cache.
    const admission = new EngineAdmission({ contextWindow: 20_000, rampMs: 10_000, rampStep: 0.5 });
    const cohort = [0, 0, 0, 0, 0];
    for (let t = 0; t <= 41_000; t += 1_000) admission.observe(load({ kvUsage: 0.1 }), t, 0, cohort);
    expect(admission.state().scale).toBe(1);
    // Staggered sessions (5 000, 10 000, 15 000 now) peak at 45 000 (just before the oldest ends): room to ramp.
    for (let t = 42_000; t <= 52_000; t += 1_000) admission.observe(load({ kvUsage: 0.1 }), t, 0, [5_000, 10_000, 15_000]);
    expect(admission.state().scale).toBe(1.5);
  });

  it('ignores readings of a paused engine (they say nothing about load)', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000 });
    admission.observe(load({ waiting: 5 }), 0);
    admission.observe(load({ waiting: 5, paused: true, kvUsage: 0.99 }), 1_000);
    expect(admission.state()).toMatchObject({ hold: null, readings: 1 });
    admission.observe(load({ waiting: 5 }), 2_000);
    expect(admission.state().hold).toBe('waiting');
  });
});

describe('the context sessions hold, the guard for sessions that age together, the cost of preemption', () => {
  it('leaves sessions still starting their harness out of the duty cycle (sessions admitted together start together)', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000, rampMs: 10_000_000 });
    // 8 admitted, none has called yet: nothing in the engine says nothing about their duty cycle.
    for (let t = 0; t < 30; t++) admission.observe(load(), t * 1_000, 0);
    expect(admission.state()).toMatchObject({ duty: 1, target: 9 });
    // 4 that called, 2 of them in the engine: a duty cycle of one half.
    for (let t = 30; t < 60; t++) admission.observe(load({ running: 2 }), t * 1_000, 4);
    expect(admission.state().duty).toBeCloseTo(0.5, 6);
  });

  it('guard: sessions older than typical count as what they hold now; a new one starts only while they and it fit', () => {
    // Typical held context 10 000 in a 100 000-token cache at kvHigh 0.9: 9 sessions of typical size.
    const admission = new EngineAdmission({ contextWindow: 20_000 });
    admission.observe(load(), 0);
    expect(admission.mayStart(4, [0, 3_000, 10_000, 8_000])).toBe(true);
    // Four sessions that aged together to 25 000 each hold 100 000: with one more of 10 000 the cache would overflow.
    expect(admission.mayStart(4, [25_000, 25_000, 25_000, 25_000])).toBe(false);
    expect(admission.mayStart(3, [25_000, 25_000, 25_000])).toBe(true);
    // The target alone would have let them in: 4 < 9.
    expect(admission.target()).toBe(9);
  });

  it('preemption with a known ceiling: a cost within the budget changes nothing; above it the gate closes and the scale backs off', () => {
    // Ceiling 20 000 tokens/s, held 10 000: one preemption recomputes about 0.5 s of GPU time.
    const ceiling = { ceilingTokensPerSecond: 20_000 };
    const admission = new EngineAdmission({ contextWindow: 20_000, preemptionBudget: 0.05, costWindowMs: 30_000, backoff: 0.5 });
    for (let t = 0; t <= 20; t++) admission.observe(load({ ...ceiling, kvUsage: 0.5 }), t * 1_000);
    // One preemption over 21 s of readings: 0.5 s / 21 s = 2.4%, within 5%.
    admission.observe(load({ ...ceiling, kvUsage: 0.5, preemptions: 1 }), 21_000);
    expect(admission.state()).toMatchObject({ hold: null, scale: 1 });
    expect(admission.state().preemptionCost).toBeCloseTo(0.5 / 21, 6);
    // Three more within a second: 2 s / 22 s = 9%: too costly.
    admission.observe(load({ ...ceiling, kvUsage: 0.5, preemptions: 4 }), 22_000);
    expect(admission.state()).toMatchObject({ hold: 'preempted', scale: 0.5 });
    // The cost falls as the window moves past them; the gate opens again.
    for (let t = 23; t <= 60; t++) admission.observe(load({ ...ceiling, kvUsage: 0.5, preemptions: 4 }), t * 1_000);
    expect(admission.state()).toMatchObject({ hold: null, scale: 0.5, preemptionCost: 0 });
  });

  it('guard after costly preemption: the admitted sessions and the new one must fit at their projected peak', () => {
    // Held 10 000, final 20 000 (a session starts near 0); no ceiling, so any preemption costs too much.
    const admission = new EngineAdmission({ contextWindow: 20_000, backoff: 0.85 });
    admission.observe(load(), 0);
    const young = [5_000, 5_000, 5_000, 5_000];
    // Before: each counts as the held context (4 x 10 000 + 10 000 fit 90 000).
    expect(admission.mayStart(4, young)).toBe(true);
    expect(admission.state().guard).toBe('held');
    admission.observe(load({ preemptions: 1 }), 1_000);
    admission.observe(load({ preemptions: 1 }), 2_000);
    expect(admission.state()).toMatchObject({ hold: null, scale: 0.85, guard: 'projected-peak' });
    // After: the held view (50 000) still fits 0.85 x 90 000, but the cohort peaks at 4 x 5 000 + 5 x 15 000 = 95 000.
    expect(admission.mayStart(4, young)).toBe(false);
    // Staggered sessions peak at 50 000 (just before the oldest ends): they fit.
    expect(admission.mayStart(3, [5_000, 10_000, 15_000])).toBe(true);
  });

  it('a queue closes the gate but does not shrink the target (the cache full of sessions older than typical)', () => {
    const admission = new EngineAdmission({ contextWindow: 20_000 });
    admission.observe(load({ waiting: 2 }), 0);
    admission.observe(load({ waiting: 2 }), 1_000);
    expect(admission.state()).toMatchObject({ hold: 'waiting', scale: 1, target: 9 });
  });
});
