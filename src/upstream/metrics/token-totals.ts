// Token and preemption totals accumulated from counter deltas, and the deltas of one poll interval.
import { counterDelta, counterReset } from './counter-delta.js';
import type { EngineMetrics } from './engine-metrics.js';

/**
 * Cumulative amounts since a poller started; null while the engine never served the counters behind one.
 * `processedTokens` = prompt tokens the engine computed (prefix-cache hits excluded) + generated tokens. It is
 * derived from the other two over the whole span, never summed interval by interval: vLLM counts a request's
 * cache hits when it is scheduled and its prompt tokens when its first token comes out, so one poll interval
 * may hold the hits and the next the prompt tokens; only their difference over a span is meaningful.
 */
export interface TokenTotals {
  promptTokens: number | null;
  computedPromptTokens: number | null;
  cachedPromptTokens: number | null;
  generationTokens: number | null;
  processedTokens: number | null;
  preemptions: number | null;
  /** Engine restarts seen (a counter went down between two readings). */
  resets: number;
}

export const ZERO_TOTALS: TokenTotals = { promptTokens: null, computedPromptTokens: null, cachedPromptTokens: null, generationTokens: null, processedTokens: null, preemptions: null, resets: 0 };

type Counters = EngineMetrics['counters'];

function values(counters: Counters): (number | null)[] {
  return [counters.promptTokens, counters.computedPromptTokens, counters.cachedPromptTokens, counters.generationTokens, counters.preemptions];
}

/** Computed prompt tokens (never below zero over a span) + generated tokens. */
function processed(computed: number | null, generation: number | null): number | null {
  return computed === null || generation === null ? null : Math.max(0, computed) + generation;
}

/**
 * What the engine did between two readings. After a restart every counter counts from zero, so each delta is
 * the current value. The computed prompt share is the engine's own figure when it serves one, else the prompt
 * tokens minus the prefix-cache hits of the interval (negative when the hits came first: see TokenTotals).
 */
export function intervalTotals(previous: Counters, current: Counters): TokenTotals {
  const reset = counterReset(values(previous), values(current));
  const delta = (before: number | null, now: number | null): number | null => (reset ? now : counterDelta(before, now));
  const promptTokens = delta(previous.promptTokens, current.promptTokens);
  const cachedPromptTokens = delta(previous.cachedPromptTokens, current.cachedPromptTokens);
  const generationTokens = delta(previous.generationTokens, current.generationTokens);
  const served = delta(previous.computedPromptTokens, current.computedPromptTokens);
  const computedPromptTokens = served ?? (promptTokens === null ? null : promptTokens - (cachedPromptTokens ?? 0));
  return {
    promptTokens,
    computedPromptTokens,
    cachedPromptTokens,
    generationTokens,
    processedTokens: processed(computedPromptTokens, generationTokens),
    preemptions: delta(previous.preemptions, current.preemptions),
    resets: reset ? 1 : 0,
  };
}

const plus = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : a + b);
const minus = (a: number | null, b: number | null): number | null => (a === null ? null : a - (b ?? 0));

export function addTotals(a: TokenTotals, b: TokenTotals): TokenTotals {
  return combine(a, b, plus, a.resets + b.resets);
}

/** What accumulated between an earlier snapshot of the totals and a later one. */
export function totalsBetween(earlier: TokenTotals, later: TokenTotals): TokenTotals {
  return combine(later, earlier, minus, later.resets - earlier.resets);
}

/** Every counter of `a` and `b` through `op`; processed tokens recomputed from the combined parts. */
function combine(a: TokenTotals, b: TokenTotals, op: (x: number | null, y: number | null) => number | null, resets: number): TokenTotals {
  const computedPromptTokens = op(a.computedPromptTokens, b.computedPromptTokens);
  const generationTokens = op(a.generationTokens, b.generationTokens);
  return {
    promptTokens: op(a.promptTokens, b.promptTokens),
    computedPromptTokens,
    cachedPromptTokens: op(a.cachedPromptTokens, b.cachedPromptTokens),
    generationTokens,
    processedTokens: processed(computedPromptTokens, generationTokens),
    preemptions: op(a.preemptions, b.preemptions),
    resets,
  };
}
