// How well a run's sessions merge: rows per session for both builders, masked fraction, drift splits.
import { NotFoundError } from '../errors.js';
import type { Store } from '../store/open-store.js';
import { buildPrefixMerging } from '../trajectory/build-prefix-merging.js';
import { DRIFT_PLACES, type DriftPlace } from '../trajectory/measure-drift.js';
import type { BuilderOptions, TrajectoryCall } from '../trajectory/trajectory-call.js';
import type { SplitReason, SplitRecord, TrajectoryBuild } from '../trajectory/trajectory-row.js';
import { toTrajectoryCall } from './to-trajectory-call.js';

export interface SessionMergeStatistics {
  sessionId: number;
  calls: number;
  trainableCalls: number;
  perRequestRows: number;
  prefixMergingRows: number;
  /** Mask-1 tokens (the same under both builders). */
  tokensTrained: number;
  /** Mask-0 response tokens of the prefix_merging rows (tool results, template glue). */
  tokensMasked: number;
  /** Calls that started a new chain because the prompt was not an exact prefix extension. */
  driftSplits: number;
}

/** Where the token that broke the prefix sits in the chain the call should have extended. */
export type DriftLocation =
  /**
   * In the chain's last sampled turn, or in the one token before it: the harness sent the turn back and the
   * template re-rendered it differently (re-rendered text can also merge, by BPE, with the last prompt token,
   * e.g. "\n" + "\n\n\n" after an empty think block was dropped).
   */
  | 'sampled-turn'
  /** Before it: the harness changed earlier context (system prompt, compaction, a reminder). */
  | 'earlier-context';

export interface MergeStatistics {
  /** Sessions with at least one captured call. */
  sessions: number;
  /** Sessions with at least one trainable call (they have rows). */
  sessionsWithRows: number;
  calls: number;
  trainableCalls: number;
  rows: { perRequest: number; prefixMerging: number };
  /** Rows divided by sessions with rows; null without any. */
  rowsPerSession: { perRequest: number | null; prefixMerging: number | null };
  /** per_request rows / prefix_merging rows (1 = nothing merged); null without rows. */
  mergeRatio: number | null;
  tokensTrained: number;
  tokensMasked: number;
  /** Masked share of prefix_merging response tokens; null without tokens. */
  maskedFraction: number | null;
  drift: {
    /** Prefix-mismatch splits (each starts a new row). */
    splits: number;
    /** Sum of their positional differing-token counts. */
    differingTokens: number;
    byLocation: Record<DriftLocation, number>;
    /** Calls that continue a lineage whose re-rendered context differs from the sampled tokens (measured). */
    continuationsWithDrift: number;
    /** Calls that continue a lineage: merged turns plus continuations with drift. */
    continuations: number;
    /** Differing tokens of those calls, in total and by where they sit. */
    driftTokens: number;
    driftTokensByPlace: Record<DriftPlace, number>;
  };
  /** prefix_merging splits by reason (`first-call` counts each session's first chain). */
  splitReasons: Record<SplitReason['kind'], number>;
  perSession: SessionMergeStatistics[];
}

export interface MergeStatisticsAccumulator {
  /**
   * Builds the session with prefix_merging (which verifies token fidelity) and adds it. per_request rows
   * are not built: that builder makes exactly one row per trainable call.
   */
  add(sessionId: number, calls: readonly TrajectoryCall[]): SessionMergeStatistics;
  result(): MergeStatistics;
}

const SPLIT_KINDS: readonly SplitReason['kind'][] = ['first-call', 'prefix-mismatch', 'length-finish', 'no-eos', 'not-trainable'];

/** Merge statistics of every session of a run that captured calls (any status; current attempt only). */
export function computeMergeStatistics(
  store: Pick<Store, 'runs' | 'calls'>,
  run: string | number,
  options?: Partial<BuilderOptions>,
): MergeStatistics {
  const found = store.runs.get(run);
  if (found === undefined) throw new NotFoundError(`no run "${run}"`, 'List the runs with: polar runs list');
  const accumulator = createMergeStatistics(options);
  for (const session of store.runs.iterateSessionSummaries(found.id)) {
    if (session.callCount === 0) continue;
    const calls = store.calls.listBySession(session.id).filter((call) => call.seq >= session.firstCallSeq);
    accumulator.add(session.id, calls.map(toTrajectoryCall));
  }
  return accumulator.result();
}

export function createMergeStatistics(options?: Partial<BuilderOptions>): MergeStatisticsAccumulator {
  const perSession: SessionMergeStatistics[] = [];
  const splitReasons = Object.fromEntries(SPLIT_KINDS.map((kind) => [kind, 0])) as Record<SplitReason['kind'], number>;
  const drift = {
    splits: 0,
    differingTokens: 0,
    byLocation: { 'sampled-turn': 0, 'earlier-context': 0 },
    continuationsWithDrift: 0,
    continuations: 0,
    driftTokens: 0,
    driftTokensByPlace: Object.fromEntries(DRIFT_PLACES.map((place) => [place, 0])) as Record<DriftPlace, number>,
  };

  return {
    add(sessionId, calls) {
      const merged = buildPrefixMerging(sessionId, calls, options);
      const { diagnostics } = merged;
      for (const split of diagnostics.splits) {
        splitReasons[split.reason.kind]++;
        if (split.reason.kind !== 'prefix-mismatch') continue;
        drift.byLocation[driftLocation(merged, split)]++;
      }
      drift.splits += diagnostics.drift.prefixMismatchSplits;
      drift.differingTokens += diagnostics.drift.prefixMismatchDifferingTokens;
      drift.continuationsWithDrift += diagnostics.drift.continuationsWithDrift;
      drift.continuations += diagnostics.drift.mergedTurns + diagnostics.drift.continuationsWithDrift;
      drift.driftTokens += diagnostics.drift.driftTokens;
      for (const place of DRIFT_PLACES) drift.driftTokensByPlace[place] += diagnostics.drift.driftTokensByPlace[place];
      const stats: SessionMergeStatistics = {
        sessionId,
        calls: calls.length,
        trainableCalls: diagnostics.trainableCalls,
        perRequestRows: diagnostics.trainableCalls,
        prefixMergingRows: merged.rows.length,
        tokensTrained: diagnostics.tokensTrained,
        tokensMasked: diagnostics.tokensMasked,
        driftSplits: diagnostics.drift.prefixMismatchSplits,
      };
      perSession.push(stats);
      return stats;
    },
    result() {
      const sum = (pick: (session: SessionMergeStatistics) => number) => perSession.reduce((total, session) => total + pick(session), 0);
      const sessionsWithRows = perSession.filter((session) => session.trainableCalls > 0).length;
      const rows = { perRequest: sum((s) => s.perRequestRows), prefixMerging: sum((s) => s.prefixMergingRows) };
      const tokensTrained = sum((s) => s.tokensTrained);
      const tokensMasked = sum((s) => s.tokensMasked);
      const ratio = (a: number, b: number) => (b > 0 ? a / b : null);
      return {
        sessions: perSession.length,
        sessionsWithRows,
        calls: sum((s) => s.calls),
        trainableCalls: sum((s) => s.trainableCalls),
        rows,
        rowsPerSession: { perRequest: ratio(rows.perRequest, sessionsWithRows), prefixMerging: ratio(rows.prefixMerging, sessionsWithRows) },
        mergeRatio: ratio(rows.perRequest, rows.prefixMerging),
        tokensTrained,
        tokensMasked,
        maskedFraction: ratio(tokensMasked, tokensTrained + tokensMasked),
        drift: { ...drift, byLocation: { ...drift.byLocation }, driftTokensByPlace: { ...drift.driftTokensByPlace } },
        splitReasons: { ...splitReasons },
        perSession: [...perSession],
      };
    },
  };
}

/**
 * Classifies a prefix-mismatch split: is the first differing token inside the candidate chain's last sampled
 * turn before this call (or the token just before it), or earlier?
 */
export function driftLocation(build: TrajectoryBuild, split: SplitRecord): DriftLocation {
  if (split.reason.kind !== 'prefix-mismatch') return 'earlier-context';
  const { candidateRowIndex, firstDifferingIndex } = split.reason;
  const own = build.turns.findIndex((turn) => turn.callId === split.callId);
  const earlier = own < 0 ? build.turns : build.turns.slice(0, own);
  const last = earlier.filter((turn) => turn.rowIndex === candidateRowIndex).at(-1);
  const row = build.rows.find((candidate) => candidate.rowIndex === candidateRowIndex);
  if (last === undefined || row === undefined) return 'earlier-context';
  return firstDifferingIndex >= row.promptIds.length + last.responseOffset - 1 ? 'sampled-turn' : 'earlier-context';
}
