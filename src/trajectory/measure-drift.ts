// How a call's prompt re-renders a chain's context: differing token hunks, where they sit, and whether the call continues that chain.
import { contextOrigin, type PromptOrigins } from './prompt-origins.js';
import type { DriftReport, TrajectoryRow } from './trajectory-row.js';

type RowTokens = Pick<TrajectoryRow, 'promptIds' | 'responseIds' | 'lossMask'>;

/** Where a re-rendered context differs from what the chain holds. */
export type DriftPlace =
  /** Inside (or the token before, or the template glue right before) an earlier sampled assistant turn: the template re-rendered what the model wrote. */
  | 'assistant-turn'
  /** Inside the system turn of the lineage's first prompt: the harness rewrote its system prompt. */
  | 'system-prompt'
  /** Inside the tokens between turns (tool results, template glue, later user turns). */
  | 'tool-result'
  /** Elsewhere in the lineage's first prompt (e.g. the first user message). */
  | 'other';

export const DRIFT_PLACES: readonly DriftPlace[] = ['assistant-turn', 'system-prompt', 'tool-result', 'other'];

export interface DriftHunk {
  place: DriftPlace;
  /** Index in the chain's context where the hunk starts. */
  contextIndex: number;
  /** Tokens of the chain's context the hunk replaces, and tokens of the prompt that replace them. */
  contextTokens: number;
  promptTokens: number;
}

export interface DriftMeasure {
  hunks: DriftHunk[];
  /** Sum over hunks of max(contextTokens, promptTokens). */
  tokens: number;
  /**
   * The prompt re-renders this chain with small differences (it continues the chain's lineage): no hunk is in
   * the lineage's first prompt outside its system turn (place `other`), the contexts re-synchronise after every
   * hunk and the hunks cover at most a quarter of the context.
   */
  continues: boolean;
}

/** Tokens that must agree again after a hunk before the contexts count as re-synchronised. */
const RESYNC = 4;
/** Largest hunk searched for on the context side. */
const MAX_HUNK = 4096;

function gramKey(ids: readonly number[], at: number): string {
  return ids.slice(at, at + RESYNC).join(',');
}

function firstAtOrAfter(positions: readonly number[], min: number): number | undefined {
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (positions[mid]! < min) lo = mid + 1;
    else hi = mid;
  }
  return positions[lo];
}

/** Longest generation-prompt tail a template re-renders (Qwen3 with thinking off: `<think>\n\n</think>\n\n`). */
const GENERATION_TAIL = 8;

/**
 * Where a hunk at context `index` sits, by the origin of the tokens it replaces (prompt-origins.ts: the lineage's
 * first prompt, a sampled assistant turn, or what came between turns; a chain that continues its lineage after
 * drift holds the lineage's re-rendered history in its prompt). `contextTokens`: the hunk's length on the context
 * side when the contexts re-synchronised after it. A hunk at a sampled turn or the token before it is in that
 * turn; so is a hunk that starts at most GENERATION_TAIL tokens before a sampled turn and reaches it: that turn's
 * template glue (the generation prompt's empty think block, which Qwen3's template drops when it re-renders the turn).
 */
function placeOf(row: RowTokens, origins: PromptOrigins, index: number, systemEnd: number, contextTokens = 0): DriftPlace {
  const originAt = (at: number) => contextOrigin(row, origins, at);
  if (originAt(index) === 'assistant-turn' || originAt(index + 1) === 'assistant-turn') return 'assistant-turn';
  const length = row.promptIds.length + row.responseIds.length;
  for (let at = index + 2; at <= index + GENERATION_TAIL && at < length; at++) {
    if (originAt(at) !== 'assistant-turn') continue;
    if (index + Math.max(contextTokens, 1) >= at) return 'assistant-turn';
    break;
  }
  if (originAt(index) === 'tool-result') return 'tool-result';
  return index <= systemEnd ? 'system-prompt' : 'other';
}

/**
 * Near the end of the context (fewer than RESYNC tokens left after a skip): where the whole rest agrees again,
 * skipping fewer than `bound` tokens in all.
 */
function tailResync(context: readonly number[], prompt: readonly number[], i: number, j: number, bound: number): { a: number; b: number } | undefined {
  let best: { a: number; b: number } | undefined;
  for (let a = Math.max(0, context.length - i - RESYNC + 1); i + a < context.length && a < bound; a++) {
    const rest = context.slice(i + a);
    for (let b = 0; b <= MAX_HUNK && j + b + rest.length <= prompt.length && a + b < bound; b++) {
      if (rest.every((id, k) => prompt[j + b + k] === id)) {
        best = { a, b };
        bound = a + b;
        break;
      }
    }
  }
  return best;
}

/**
 * Compares the chain's context with `prompt` from `from` (their first differing index) to the end of the
 * context: a greedy diff that, at each difference, finds the nearest point where RESYNC tokens agree again, or
 * where the context's last tokens do when that is nearer (the end of the chain's last sampled turn: without it, a
 * re-rendered last turn that never agrees again would align on glue of the prompt's next turn, such as its
 * generation prompt's empty think block). `origins` says where the tokens of the chain's prompt come from
 * (prompt-origins.ts); `systemTurnEnd` is the index of the first end-of-turn token in the lineage's first prompt
 * (the system turn, when the harness sends one), -1 when there is none.
 */
export function measureDrift(row: RowTokens, origins: PromptOrigins, prompt: readonly number[], from: number, systemTurnEnd: number): DriftMeasure {
  const context = [...row.promptIds, ...row.responseIds];
  const length = context.length;
  const index = new Map<string, number[]>();
  for (let p = from; p + RESYNC <= prompt.length; p++) {
    const key = gramKey(prompt, p);
    const list = index.get(key);
    if (list) list.push(p);
    else index.set(key, [p]);
  }
  const hunks: DriftHunk[] = [];
  let i = from;
  let j = from;
  let resynced = true;
  while (i < length) {
    if (j < prompt.length && context[i] === prompt[j]) {
      i++;
      j++;
      continue;
    }
    let best: { a: number; b: number } | undefined;
    for (let a = 0; a <= MAX_HUNK && i + a + RESYNC <= length; a++) {
      if (best && a >= best.a + best.b) break;
      const positions = index.get(gramKey(context, i + a));
      const at = positions ? firstAtOrAfter(positions, j) : undefined;
      if (at !== undefined && (!best || a + (at - j) < best.a + best.b)) best = { a, b: at - j };
    }
    best = tailResync(context, prompt, i, j, best === undefined ? Number.POSITIVE_INFINITY : best.a + best.b) ?? best;
    if (!best) {
      hunks.push({ place: placeOf(row, origins, i, systemTurnEnd), contextIndex: i, contextTokens: length - i, promptTokens: Math.max(0, Math.min(prompt.length, length) - j) });
      resynced = false;
      break;
    }
    hunks.push({ place: placeOf(row, origins, i, systemTurnEnd, best.a), contextIndex: i, contextTokens: best.a, promptTokens: best.b });
    i += best.a;
    j += best.b;
  }
  const tokens = hunks.reduce((sum, hunk) => sum + Math.max(hunk.contextTokens, hunk.promptTokens), 0);
  const tailHunk = hunks.at(-1);
  const smallTail = resynced || (tailHunk !== undefined && tailHunk.contextTokens <= RESYNC * 4);
  // A harness re-renders history, it does not rewrite the lineage's first user message: a difference there is a new lineage.
  const firstQueryKept = hunks.every((hunk) => hunk.place !== 'other');
  const continues = firstQueryKept && smallTail && tokens <= Math.max(RESYNC, length / 4) && prompt.length >= (length * 3) / 4;
  return { hunks, tokens, continues };
}

/** A drift report with nothing counted yet. */
export function emptyDriftReport(): DriftReport {
  return {
    mergedTurns: 0,
    continuationsWithDrift: 0,
    driftTokens: 0,
    driftTokensByPlace: { 'assistant-turn': 0, 'system-prompt': 0, 'tool-result': 0, other: 0 },
    prefixMismatchSplits: 0,
    prefixMismatchDifferingTokens: 0,
  };
}
