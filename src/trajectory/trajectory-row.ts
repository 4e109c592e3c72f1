// The rows trajectory builders emit and the per-session diagnostics that explain them.
import type { CallStatus } from '../capture/call-record.js';
import type { NotTrainableDetail } from './check-trainable.js';
import type { Lineage } from './lineage.js';
import type { DriftMeasure, DriftPlace } from './measure-drift.js';

export type TrajectoryBuilderName = 'per_request' | 'prefix_merging';

export const TRAJECTORY_BUILDERS: readonly TrajectoryBuilderName[] = ['per_request', 'prefix_merging'];

/** One training sample: a prompt and a response with a loss mask aligned to the response. */
export interface TrajectoryRow {
  sessionId: number;
  /** Position of the row within its session (0-based, in order of the row's first call). */
  rowIndex: number;
  /** The calls whose sampled tokens the row carries, in order. */
  callIds: number[];
  /** The first call's prompt ids: context only, never trained. */
  promptIds: number[];
  /** Everything after the prompt: sampled tokens (mask 1) and interstitial tokens (mask 0). */
  responseIds: number[];
  /** 1 where the token was sampled by the model, 0 where it came from the prompt of a later call. */
  lossMask: (0 | 1)[];
  /** The sampled logprob where mask is 1; null where mask is 0. */
  logprobs: (number | null)[];
  /**
   * The policy version each response token was sampled with, aligned with `responseIds`: the call's
   * per-token version (`TrajectoryCall.tokenVersions`, else its `policyVersion`) where mask is 1, -1 where
   * mask is 0 (AReaL's convention for tokens the model did not sample). Null when a call of the row has no
   * recorded version.
   */
  versions: number[] | null;
  builder: TrajectoryBuilderName;
}

/** Where one trainable call's sampled tokens sit: `row.responseIds[responseOffset .. + length]`. */
export interface TurnPlacement {
  callId: number;
  rowIndex: number;
  responseOffset: number;
  length: number;
}

/** Why a call did not extend an existing chain (or was left out entirely). */
export type SplitReason =
  /** The session's first trainable call. */
  | { kind: 'first-call' }
  /**
   * No chain's context is an exact token prefix of the call's prompt. Compared against the chain with
   * the longest common prefix (the best candidate).
   */
  | {
      kind: 'prefix-mismatch';
      candidateRowIndex: number;
      /** Index (in the full context: prompt + response) of the first token that differs. */
      firstDifferingIndex: number;
      /**
       * Positions in the candidate's context from `firstDifferingIndex` on where the call's prompt holds
       * a different token or none. Positional: an inserted or dropped token shifts and counts the rest.
       */
      differingTokens: number;
      candidateContextLength: number;
      promptLength: number;
      /** The measured difference against the candidate: hunks, where they sit, whether the call continues its lineage. */
      drift: DriftMeasure;
    }
  /** The matching chain's last call ended by `length`: no EOS was sampled, so the turn is open. */
  | { kind: 'length-finish'; candidateRowIndex: number }
  /** The matching chain's last call ended without an EOS for another reason (a stop string, ...). */
  | { kind: 'no-eos'; candidateRowIndex: number; finishReason: string | null; lastTokenId: number }
  /** The call is never trained on; it is in no row. */
  | { kind: 'not-trainable'; status: CallStatus; detail: NotTrainableDetail };

export interface SplitRecord {
  callId: number;
  seq: number;
  reason: SplitReason;
}

/**
 * Context drift, measured: merging only happens on an exact token prefix and the builder re-checks every
 * merged turn, so a merged turn's context is exactly what the model was given. Drift is a call that
 * continues a lineage (its prompt re-renders a chain's context with small differences) but cannot be
 * merged: it is counted with how many tokens differ and where (measure-drift.ts).
 */
export interface DriftReport {
  /** Turns appended to an existing chain. */
  mergedTurns: number;
  /** Calls that continue a lineage whose re-rendered context differs from the tokens the chain holds. */
  continuationsWithDrift: number;
  /** Differing tokens of those calls, in total and by where they sit. */
  driftTokens: number;
  driftTokensByPlace: Record<DriftPlace, number>;
  /** Calls that started a new chain because of a prefix mismatch. */
  prefixMismatchSplits: number;
  /** Sum of `differingTokens` over those splits. */
  prefixMismatchDifferingTokens: number;
}

export interface SessionDiagnostics {
  sessionId: number;
  builder: TrajectoryBuilderName;
  /** All captured calls of the session. */
  calls: number;
  trainableCalls: number;
  chains: number;
  rows: number;
  /** Tokens with mask 1. */
  tokensTrained: number;
  /** Tokens with mask 0 inside responses (interstitials). */
  tokensMasked: number;
  /** Sum of the rows' prompt lengths. */
  promptTokens: number;
  /** Every call that did not extend a chain, in build order, with its reason. */
  splits: SplitRecord[];
  drift: DriftReport;
  /** prefix_merging: the session's lineages (main, sub-agents, side calls), detected from the tokens. */
  lineages?: Lineage[];
}

/** What a builder returns for one session. */
export interface TrajectoryBuild {
  rows: TrajectoryRow[];
  /** One entry per trainable call, in build order. */
  turns: TurnPlacement[];
  diagnostics: SessionDiagnostics;
}
