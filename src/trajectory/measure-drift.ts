// How a call's prompt re-renders a chain's context: differing token hunks, where they sit, and whether the call continues that chain.
import type { DriftReport, TrajectoryRow } from './trajectory-row.js';

/** Where a re-rendered context differs from what the chain holds. */
export type DriftPlace =
  /** Inside (or the token before) an earlier sampled assistant turn: the template re-rendered what the model wrote. */
  | 'assistant-turn'
  /** Inside the first prompt's system turn: the harness rewrote its system prompt. */
  | 'system-prompt'
  /** Inside the masked tokens between turns (tool results, template glue, later user turns). */
  | 'tool-result'
  /** Elsewhere in the first prompt (e.g. the first user message). */
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
   * The prompt re-renders this chain with small differences (it continues the chain's lineage): the
   * contexts re-synchronise after every hunk and the hunks cover at most a quarter of the context.
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
 * `contextTokens`: the hunk's length on the context side when the contexts re-synchronised after it. A hunk that
 * starts at the end of the chain's first prompt and reaches its first sampled token is that turn's template glue
 * (the generation prompt's empty think block, which Qwen3's template drops when it re-renders the turn).
 */
function placeOf(row: Pick<TrajectoryRow, 'promptIds' | 'lossMask'>, index: number, systemEnd: number, contextTokens = 0): DriftPlace {
  const { promptIds, lossMask } = row;
  if (index < promptIds.length) {
    const beforeSampled = lossMask[0] === 1 && promptIds.length - index <= GENERATION_TAIL && index + Math.max(contextTokens, 1) >= promptIds.length;
    if (beforeSampled) return 'assistant-turn';
    return index <= systemEnd ? 'system-prompt' : 'other';
  }
  const at = index - promptIds.length;
  if (lossMask[at] === 1 || lossMask[at + 1] === 1) return 'assistant-turn';
  return 'tool-result';
}

/** Near the end of the context (fewer than RESYNC tokens left after a skip): where the whole rest agrees again. */
function tailResync(context: readonly number[], prompt: readonly number[], i: number, j: number): { a: number; b: number } | undefined {
  let best: { a: number; b: number } | undefined;
  for (let a = Math.max(0, context.length - i - RESYNC + 1); i + a < context.length; a++) {
    const rest = context.slice(i + a);
    for (let b = 0; b <= MAX_HUNK && j + b + rest.length <= prompt.length; b++) {
      if (best && a + b >= best.a + best.b) break;
      if (rest.every((id, k) => prompt[j + b + k] === id)) best = { a, b };
    }
  }
  return best;
}

/**
 * Compares the chain's context with `prompt` from `from` (their first differing index) to the end of the
 * context: a greedy diff that, at each difference, finds the nearest point where RESYNC tokens agree
 * again. `systemTurnEnd` is the index of the first end-of-turn token in the chain's first prompt (the
 * system turn, when the harness sends one), -1 when there is none.
 */
export function measureDrift(
  row: Pick<TrajectoryRow, 'promptIds' | 'responseIds' | 'lossMask'>,
  prompt: readonly number[],
  from: number,
  systemTurnEnd: number,
): DriftMeasure {
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
    if (!best) best = tailResync(context, prompt, i, j);
    if (!best) {
      hunks.push({ place: placeOf(row, i, systemTurnEnd), contextIndex: i, contextTokens: length - i, promptTokens: Math.max(0, Math.min(prompt.length, length) - j) });
      resynced = false;
      break;
    }
    hunks.push({ place: placeOf(row, i, systemTurnEnd, best.a), contextIndex: i, contextTokens: best.a, promptTokens: best.b });
    i += best.a;
    j += best.b;
  }
  const tokens = hunks.reduce((sum, hunk) => sum + Math.max(hunk.contextTokens, hunk.promptTokens), 0);
  const tailHunk = hunks.at(-1);
  const smallTail = resynced || (tailHunk !== undefined && tailHunk.contextTokens <= RESYNC * 4);
  // A harness re-renders history, it does not rewrite the first user message: a difference there is a new lineage.
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
