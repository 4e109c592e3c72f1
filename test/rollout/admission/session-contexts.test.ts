// What engine admission knows of the sessions' contexts: each session's held context (its calls' contexts while
// decoding, weighted by their sampled tokens) and final one, and the estimate over ended and earlier sessions.
import { describe, expect, it } from 'vitest';
import { HeldContext, PRIOR_WEIGHT, SessionContexts } from '../../../src/rollout/admission/session-contexts.js';

describe('HeldContext', () => {
  it('weights each call\'s context (prompt + half its output) by the tokens it sampled; final is the last call\'s context', () => {
    const context = new HeldContext();
    expect(context.value()).toBeNull();
    context.add(1_000, 100); // held 1 050 while decoding 100 tokens
    context.add(5_000, 300); // held 5 150 while decoding 300
    expect(context.current).toBe(5_300);
    expect(context.value()).toEqual({ held: (1_050 * 100 + 5_150 * 300) / 400, final: 5_300 });
  });

  it('passes over a call the engine never ran (a context overflow, an error): the session still counts with what it held', () => {
    const context = new HeldContext();
    context.add(20_000, 400);
    context.add(0, 0);
    expect(context.current).toBe(20_400);
    expect(context.value()).toEqual({ held: 20_200, final: 20_400 });
  });
});

describe('SessionContexts', () => {
  it('half the context window before anything is known; then ended sessions, seeded by at most PRIOR_WEIGHT earlier ones', () => {
    expect(new SessionContexts({ contextWindow: 32_768 }).held()).toBe(16_384);
    expect(new SessionContexts().held()).toBeNull();
    const contexts = new SessionContexts({ contextWindow: 32_768, prior: Array.from({ length: 10 }, () => ({ held: 8_000, final: 16_000 })) });
    expect(contexts.held()).toBe(8_000);
    contexts.sessionEnded({ held: 18_000, final: 30_000 });
    expect(contexts.held()).toBe((PRIOR_WEIGHT * 8_000 + 18_000) / (PRIOR_WEIGHT + 1));
    expect(contexts.final()).toBe((PRIOR_WEIGHT * 16_000 + 30_000) / (PRIOR_WEIGHT + 1));
    contexts.sessionEnded({ held: 5_000, final: 0 });
    expect(contexts.endedSessions).toBe(1);
  });
});
