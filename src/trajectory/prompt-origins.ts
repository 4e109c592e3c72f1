// Where each token of a chain's prompt comes from: its lineage's first prompt, or history the lineage built that a later prompt re-rendered.
import { contextLength } from './chain-context.js';
import type { DriftHunk, DriftPlace } from './measure-drift.js';
import type { TrajectoryRow } from './trajectory-row.js';

/**
 * `first-prompt`: the lineage's first prompt (system turn, first user message, its generation prompt);
 * `assistant-turn`: a turn the model sampled; `tool-result`: what came between turns (tool results, later user
 * turns, template glue).
 */
export type PromptOrigin = 'first-prompt' | 'assistant-turn' | 'tool-result';

export interface OriginRun {
  /** First index of the run; it lasts until the next run's start (the last one to the end). */
  start: number;
  origin: PromptOrigin;
}

/** Runs of equal origin in start order, the first at 0. */
export type PromptOrigins = readonly OriginRun[];

/** A lineage's first chain: its whole prompt is the lineage's first prompt. */
export const FIRST_PROMPT_ORIGINS: PromptOrigins = [{ start: 0, origin: 'first-prompt' }];

type RowTokens = Pick<TrajectoryRow, 'promptIds' | 'responseIds' | 'lossMask'>;

function originOfPlace(place: DriftPlace): PromptOrigin {
  return place === 'assistant-turn' || place === 'tool-result' ? place : 'first-prompt';
}

/** Origin of token `index` of the row's context: its prompt by `origins`, its response by loss mask. */
export function contextOrigin(row: RowTokens, origins: PromptOrigins, index: number): PromptOrigin {
  if (index >= row.promptIds.length) return row.lossMask[index - row.promptIds.length] === 1 ? 'assistant-turn' : 'tool-result';
  let origin = origins[0]?.origin ?? 'first-prompt';
  for (const run of origins) {
    if (run.start > index) break;
    origin = run.origin;
  }
  return origin;
}

/** End (exclusive) of the lineage's first prompt in the row's prompt. */
export function firstPromptEnd(row: RowTokens, origins: PromptOrigins): number {
  const after = origins.find((run) => run.origin !== 'first-prompt');
  return Math.min(after?.start ?? row.promptIds.length, row.promptIds.length);
}

/** The context's runs (prompt by `origins`, response by loss mask). */
function contextRuns(row: RowTokens, origins: PromptOrigins): OriginRun[] {
  const runs = new RunList();
  for (const run of origins) if (run.start < row.promptIds.length) runs.add(run.start, run.origin);
  row.lossMask.forEach((mask, i) => runs.add(row.promptIds.length + i, mask === 1 ? 'assistant-turn' : 'tool-result'));
  return runs.runs;
}

/**
 * Origins of a prompt that re-renders `row`'s context (the row's lineage continues in it): a token the context
 * holds keeps its origin there, a token of a hunk gets the hunk's place, and what follows the context is new
 * material between turns (tool results, user turns, the generation prompt). `hunks` are measureDrift's, in order
 * (none when the context is an exact prefix of the prompt).
 */
export function continuedOrigins(row: RowTokens, origins: PromptOrigins, promptLength: number, hunks: readonly DriftHunk[]): PromptOrigins {
  const context = contextRuns(row, origins);
  const out = new RunList();
  let i = 0;
  let j = 0;
  const copyUntil = (end: number): void => {
    for (const [k, run] of context.entries()) {
      const runEnd = context[k + 1]?.start ?? Number.POSITIVE_INFINITY;
      if (runEnd <= i || run.start >= end) continue;
      out.add(j + Math.max(run.start, i) - i, run.origin);
    }
    j += end - i;
    i = end;
  };
  for (const hunk of hunks) {
    copyUntil(hunk.contextIndex);
    out.add(j, originOfPlace(hunk.place));
    i += hunk.contextTokens;
    j += hunk.promptTokens;
  }
  copyUntil(Math.max(i, contextLength(row)));
  out.add(j, 'tool-result');
  return out.runs.filter((run) => run.start < promptLength || run.start === 0);
}

/** Runs built in start order: a run with the previous run's origin extends it; one at the same start replaces it. */
class RunList {
  readonly runs: OriginRun[] = [];

  add(start: number, origin: PromptOrigin): void {
    let last = this.runs.at(-1);
    if (last !== undefined && last.start >= start) {
      this.runs.pop();
      last = this.runs.at(-1);
    }
    if (last?.origin === origin) return;
    this.runs.push({ start, origin });
  }
}
