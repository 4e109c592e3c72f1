// prefix_merging builder: chains a session's calls on exact token prefixes, losing nothing when a chain breaks.
import { trainableCallsInBuildOrder, type TrainableCall } from './check-trainable.js';
import { contextLength, contextPrefixLength, countDifferingTokens, isContextPrefixOf } from './chain-context.js';
import { countRowTokens } from './count-row-tokens.js';
import { lineagesOf } from './lineage.js';
import { emptyDriftReport, measureDrift } from './measure-drift.js';
import { continuedOrigins, FIRST_PROMPT_ORIGINS, firstPromptEnd, type PromptOrigins } from './prompt-origins.js';
import { resolveBuilderOptions, type BuilderOptions, type TrajectoryCall } from './trajectory-call.js';
import type {
  DriftReport,
  SplitReason,
  SplitRecord,
  TrajectoryBuild,
  TrajectoryRow,
  TurnPlacement,
} from './trajectory-row.js';
import { assertTrajectoryFidelity } from './verify-trajectory.js';

/** A chain being built: its row grows as calls join. */
interface Chain {
  row: TrajectoryRow;
  /** False once the last call ended without an EOS token: the turn is not closed, nothing may follow. */
  open: boolean;
  lastFinishReason: string | null;
  lastTokenId: number;
  /** Build step of the last call that joined; larger is more recent. */
  lastTouched: number;
  /** The lineage the chain belongs to (lineage.ts). */
  lineage: number;
  /** Where the tokens of the row's prompt come from: the lineage's first prompt, or its re-rendered history. */
  origins: PromptOrigins;
}

/**
 * Walks the session's calls in `seq` order and chains them.
 *
 * A trainable call joins an open chain when the chain's full context (first prompt + everything appended)
 * is an EXACT token prefix of the call's prompt. The tail of the prompt after that prefix (template glue,
 * tool results, user turns) is appended with mask 0, then the call's sampled tokens with mask 1 and their
 * logprobs. Several chains stay open (sub-agents, side calls and compaction start their own; the main
 * chain can resume later). Among open chains that match, the longest context wins (they are nested, so
 * the longest leaves the shortest interstitial); ties go to the most recently extended chain.
 *
 * Unlike Polar's builder, a call that matches no chain starts a new chain (its own row) and the split is
 * recorded with a typed reason; nothing is dropped. Non-trainable calls are recorded and never trained.
 *
 * On drift: because the merge condition is an exact prefix of the *captured* prompt, the context the
 * trainer rebuilds for every merged turn is, token for token, the prompt vLLM reported for that call.
 * (Polar compares prompt against prompt and splices the raw sampled tokens in place of the re-rendered
 * ones, so its rebuilt context can differ from what the model saw; polar compares against the chain's
 * context including the sampled tokens, so a re-rendering that differs is a split, not silent drift.)
 * The result is re-verified before it is returned (`assertTrajectoryFidelity`), so merged-turn drift is
 * 0 or the build throws. The drift that does exist is the divergence that forced a new chain; it is
 * measured per prefix-mismatch split (`drift`: token hunks and where they sit) and, for calls that
 * continue a lineage, summed in `diagnostics.drift`.
 *
 * Throws InternalError if the result is not token-faithful (a bug in this builder).
 */
export function buildPrefixMerging(
  sessionId: number,
  calls: readonly TrajectoryCall[],
  options?: Partial<BuilderOptions>,
): TrajectoryBuild {
  const { eosTokenIds } = resolveBuilderOptions(options);
  const eos = new Set(eosTokenIds);
  const chains: Chain[] = [];
  const turns: TurnPlacement[] = [];
  const splits: SplitRecord[] = [];
  const drift: DriftReport = emptyDriftReport();

  let step = 0;
  let lineages = 0;
  for (const trainable of trainableCallsInBuildOrder(calls, splits)) {
    step++;
    let chain = findOpenChain(chains, trainable.promptTokenIds);
    if (chain) {
      drift.mergedTurns++;
      appendInterstitial(chain.row, trainable.promptTokenIds);
    } else {
      const reason = explainSplit(chains, trainable.promptTokenIds, eos);
      splits.push({ callId: trainable.call.id, seq: trainable.call.seq, reason });
      if (reason.kind === 'prefix-mismatch') {
        drift.prefixMismatchSplits++;
        drift.prefixMismatchDifferingTokens += reason.differingTokens;
        if (reason.drift.continues) {
          drift.continuationsWithDrift++;
          drift.driftTokens += reason.drift.tokens;
          for (const hunk of reason.drift.hunks) drift.driftTokensByPlace[hunk.place] += Math.max(hunk.contextTokens, hunk.promptTokens);
        }
      }
      // A re-rendering with small drift, or a turn after a length/no-EOS finish, continues the candidate's lineage:
      // the new chain's prompt then holds that lineage's history, re-rendered, after its first prompt.
      const continues = reason.kind === 'length-finish' || reason.kind === 'no-eos' || (reason.kind === 'prefix-mismatch' && reason.drift.continues);
      const candidate = continues ? chains[reason.candidateRowIndex] : undefined;
      if (candidate) {
        const hunks = reason.kind === 'prefix-mismatch' ? reason.drift.hunks : [];
        const origins = continuedOrigins(candidate.row, candidate.origins, trainable.promptTokenIds.length, hunks);
        chain = startChain(sessionId, chains.length, trainable, candidate.lineage, origins);
      } else {
        chain = startChain(sessionId, chains.length, trainable, lineages++, FIRST_PROMPT_ORIGINS);
      }
      chains.push(chain);
    }
    turns.push(appendSampled(chain, trainable, eos, step));
  }

  const rows = chains.map((chain) => chain.row);
  const build: TrajectoryBuild = {
    rows,
    turns,
    diagnostics: {
      sessionId,
      builder: 'prefix_merging',
      calls: calls.length,
      trainableCalls: turns.length,
      chains: chains.length,
      rows: rows.length,
      ...countRowTokens(rows),
      splits,
      drift,
      lineages: lineagesOf(
        chains.map((c) => c.lineage),
        rows.map((row) => row.callIds),
      ),
    },
  };
  assertTrajectoryFidelity(calls, build);
  return build;
}

/** The open chain this prompt extends. */
function findOpenChain(chains: readonly Chain[], prompt: readonly number[]): Chain | undefined {
  return longestMatch(byRecency(chains), prompt, true);
}

/** Among chains that are open (or closed) as asked, the longest whose context prefixes the prompt; the first on ties. */
function longestMatch(ordered: readonly Chain[], prompt: readonly number[], open: boolean): Chain | undefined {
  let found: Chain | undefined;
  for (const chain of ordered) {
    if (chain.open !== open || !isContextPrefixOf(chain.row, prompt)) continue;
    if (!found || contextLength(chain.row) > contextLength(found.row)) found = chain;
  }
  return found;
}

/** Why no open chain matched, against the best candidate. */
function explainSplit(chains: readonly Chain[], prompt: readonly number[], eos: ReadonlySet<number>): SplitReason {
  if (chains.length === 0) return { kind: 'first-call' };
  const ordered = byRecency(chains);

  const closedMatch = longestMatch(ordered, prompt, false);
  if (closedMatch) {
    const candidateRowIndex = closedMatch.row.rowIndex;
    return closedMatch.lastFinishReason === 'length'
      ? { kind: 'length-finish', candidateRowIndex }
      : {
          kind: 'no-eos',
          candidateRowIndex,
          finishReason: closedMatch.lastFinishReason,
          lastTokenId: closedMatch.lastTokenId,
        };
  }

  let best = ordered[0]!;
  let bestCommon = contextPrefixLength(best.row, prompt);
  for (const chain of ordered.slice(1)) {
    const common = contextPrefixLength(chain.row, prompt);
    if (common > bestCommon) {
      best = chain;
      bestCommon = common;
    }
  }
  return {
    kind: 'prefix-mismatch',
    candidateRowIndex: best.row.rowIndex,
    firstDifferingIndex: bestCommon,
    differingTokens: countDifferingTokens(best.row, prompt, bestCommon),
    candidateContextLength: contextLength(best.row),
    promptLength: prompt.length,
    drift: measureDrift(best.row, best.origins, prompt, bestCommon, systemTurnEnd(best, eos)),
  };
}

/** Index of the first end-of-turn token in the lineage's first prompt (its system turn, when there is one), or -1. */
function systemTurnEnd(chain: Chain, eos: ReadonlySet<number>): number {
  const end = firstPromptEnd(chain.row, chain.origins);
  const index = chain.row.promptIds.findIndex((id) => eos.has(id));
  return index < end ? index : -1;
}

function byRecency(chains: readonly Chain[]): Chain[] {
  return [...chains].sort((a, b) => b.lastTouched - a.lastTouched);
}

function startChain(sessionId: number, rowIndex: number, call: TrainableCall, lineage: number, origins: PromptOrigins): Chain {
  return {
    row: {
      sessionId,
      rowIndex,
      callIds: [],
      promptIds: [...call.promptTokenIds],
      responseIds: [],
      lossMask: [],
      logprobs: [],
      versions: call.versions === null ? null : [],
      builder: 'prefix_merging',
    },
    open: true,
    lastFinishReason: null,
    lastTokenId: -1,
    lastTouched: 0,
    lineage,
    origins,
  };
}

/** Appends the prompt's tail after the row's context with mask 0 (caller checked the prefix). */
function appendInterstitial(row: TrajectoryRow, prompt: readonly number[]): void {
  for (let i = contextLength(row); i < prompt.length; i++) {
    row.responseIds.push(prompt[i]!);
    row.lossMask.push(0);
    row.logprobs.push(null);
    row.versions?.push(-1);
  }
}

/**
 * Appends the call's sampled tokens with mask 1 (and their versions; a call without versions makes the
 * row's null) and updates whether the chain stays open.
 */
function appendSampled(chain: Chain, call: TrainableCall, eos: ReadonlySet<number>, step: number): TurnPlacement {
  const { row } = chain;
  const responseOffset = row.responseIds.length;
  if (call.versions === null) row.versions = null;
  for (let i = 0; i < call.tokenIds.length; i++) {
    row.responseIds.push(call.tokenIds[i]!);
    row.lossMask.push(1);
    row.logprobs.push(call.logprobs[i]!);
    row.versions?.push(call.versions![i]!);
  }
  row.callIds.push(call.call.id);
  const lastTokenId = call.tokenIds[call.tokenIds.length - 1]!;
  chain.open = eos.has(lastTokenId);
  chain.lastFinishReason = call.call.finishReason;
  chain.lastTokenId = lastTokenId;
  chain.lastTouched = step;
  return { callId: call.call.id, rowIndex: row.rowIndex, responseOffset, length: call.tokenIds.length };
}
