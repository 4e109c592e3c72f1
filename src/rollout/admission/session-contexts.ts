// How large the sessions of a workload get, as engine admission needs it: the context a session holds in the
// KV cache over its life (what its calls held while they decoded, weighted by the tokens each sampled: a session
// whose context grows from 3k to 30k holds about 16k on average) and the context it reaches (its last call's
// prompt + sampled tokens). The admission target divides the KV cache by the held context; sizing by the
// context reached would leave the cache mostly empty for most of a session's life.
// The estimate is the mean over this run's ended sessions, seeded by what earlier sessions on the model held
// (from the store, counted as at most PRIOR_WEIGHT sessions); with neither, half the context window (what a
// session growing steadily to the window holds on average). One estimate serves every replica of a fleet:
// it is the workload's, not a replica's.

/** One session's contexts, in tokens. */
export interface SessionContext {
  /** What its calls held while decoding: each call's prompt + half its sampled tokens, weighted by its sampled tokens. */
  held: number;
  /** The context it reached: its last call's prompt + sampled tokens. */
  final: number;
}

/** The most ended sessions the prior contexts' mean counts as. */
export const PRIOR_WEIGHT = 4;

/** Folds one session's calls into its SessionContext as they complete. */
export class HeldContext {
  private weighted = 0;
  private sampled = 0;
  private last = 0;

  /**
   * A call of the session completed with `prompt` prompt tokens and `sampled` sampled tokens. A call with neither
   * (refused before the engine ran it: a context overflow, an upstream error) held nothing and changes nothing,
   * so a session whose last call overflowed the context window still counts with what its calls held.
   */
  add(prompt: number, sampled: number): void {
    if (!(prompt >= 0) || !(sampled >= 0) || prompt + sampled === 0) return;
    this.weighted += (prompt + sampled / 2) * sampled;
    this.sampled += sampled;
    this.last = prompt + sampled;
  }

  /** What the session's context is now (its last call's prompt + sampled; 0 before its first call). */
  get current(): number {
    return this.last;
  }

  /** Null before a call that sampled anything. */
  value(): SessionContext | null {
    if (this.sampled === 0) return this.last > 0 ? { held: this.last, final: this.last } : null;
    return { held: this.weighted / this.sampled, final: this.last };
  }
}

export interface SessionContextsOptions {
  /** The model's context window (max_model_len): half of it is the held context before anything is known. */
  contextWindow?: number | null;
  /** What earlier sessions on the model held and reached (from the store). */
  prior?: readonly SessionContext[];
}

export class SessionContexts {
  private heldSum = 0;
  private finalSum = 0;
  private ended = 0;
  private readonly contextWindow: number | null;
  private readonly priorSessions: number;
  private readonly priorHeld: number;
  private readonly priorFinal: number;

  constructor(options: SessionContextsOptions = {}) {
    this.contextWindow = options.contextWindow ?? null;
    const prior = (options.prior ?? []).filter((context) => context.held > 0 && context.final > 0);
    this.priorSessions = prior.length;
    this.priorHeld = prior.length === 0 ? 0 : prior.reduce((sum, context) => sum + context.held, 0) / prior.length;
    this.priorFinal = prior.length === 0 ? 0 : prior.reduce((sum, context) => sum + context.final, 0) / prior.length;
  }

  /** A session ended with these contexts (a bare number: it held and reached that many tokens). */
  sessionEnded(context: SessionContext | number): void {
    const { held, final } = typeof context === 'number' ? { held: context, final: context } : context;
    if (!(held > 0) || !(final > 0)) return;
    this.heldSum += held;
    this.finalSum += final;
    this.ended += 1;
  }

  /** Sessions of this run that ended into the estimate, and earlier ones that seeded it. */
  get endedSessions(): number {
    return this.ended;
  }

  get seededBy(): number {
    return this.priorSessions;
  }

  /** The context a session typically holds over its life (tokens); null when nothing is known, not even the window. */
  held(): number | null {
    return this.estimate(this.heldSum, this.priorHeld, this.contextWindow === null ? null : this.contextWindow / 2);
  }

  /** The context a session typically reaches (tokens); null when nothing is known. */
  final(): number | null {
    return this.estimate(this.finalSum, this.priorFinal, this.contextWindow);
  }

  private estimate(sum: number, priorMean: number, fallback: number | null): number | null {
    const priorWeight = Math.min(this.priorSessions, PRIOR_WEIGHT);
    if (this.ended + priorWeight === 0) return fallback;
    return (sum + priorWeight * priorMean) / (this.ended + priorWeight);
  }
}
