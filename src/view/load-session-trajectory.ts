// A session's export rows, built exactly as `polar export` builds them (same calls, same builders), cached per session state.
import type { CallStatus } from '../capture/call-record.js';
import type { ViewStore } from '../store/open-view-store.js';
import type { SessionDetail } from '../store/view-session-queries.js';
import { buildTrajectory } from '../trajectory/build-trajectory.js';
import type { TrajectoryBuild, TrajectoryBuilderName } from '../trajectory/trajectory-row.js';

/** Tokens each side of the first differing position in a drift diff. */
const DRIFT_BEFORE = 12;
const DRIFT_AFTER = 48;

/** The two token runs of a prefix-mismatch split: the candidate chain's context and the call's prompt, from `start`. */
export interface DriftPair {
  callId: number;
  seq: number;
  candidateRowIndex: number;
  firstDifferingIndex: number;
  differingTokens: number;
  start: number;
  context: number[];
  prompt: number[];
}

export interface SessionTrajectory {
  build: TrajectoryBuild;
  drift: DriftPair[];
  /** Calls of the session (all attempts): id, seq, status, and whether an earlier attempt made it. */
  calls: { id: number; seq: number; status: string; earlierAttempt: boolean; model: string | null }[];
  model: string | null;
}

export interface TrajectoryLoader {
  load(session: SessionDetail, builder: TrajectoryBuilderName): SessionTrajectory;
}

/** How many builds stay cached (a 150k-token session is a few MB). */
const CACHE_SIZE = 6;

export function createTrajectoryLoader(view: ViewStore): TrajectoryLoader {
  const cache = new Map<string, { stamp: string; value: SessionTrajectory }>();
  return {
    load(session, builder) {
      const key = `${session.id}:${builder}`;
      const light = view.sessions.calls(session.id);
      const stamp = `${session.updatedAt}:${session.firstCallSeq}:${light.length}:${light.at(-1)?.id ?? 0}`;
      const hit = cache.get(key);
      if (hit !== undefined && hit.stamp === stamp) {
        cache.delete(key);
        cache.set(key, hit);
        return hit.value;
      }
      // Calls of earlier attempts are kept in the store and never exported: the same filter as exportRun.
      const stored = view.tokens.read(session.id, session.firstCallSeq);
      // The builders only read prompt ids (index, length, spread), so the shared Float64Array views stand in
      // for arrays: no call's prompt is copied. The token-view test compares the result with `polar export`.
      const calls = stored.map((call) => ({ ...call, status: call.status as CallStatus, promptTokenIds: call.promptTokenIds as unknown as number[] | null }));
      const build = buildTrajectory(builder, session.id, calls);
      const prompts = new Map(stored.map((call) => [call.id, call.promptTokenIds ?? new Float64Array(0)]));
      const drift = build.diagnostics.splits.flatMap((split): DriftPair[] => {
        if (split.reason.kind !== 'prefix-mismatch') return [];
        const row = build.rows[split.reason.candidateRowIndex];
        if (row === undefined) return [];
        const start = Math.max(0, split.reason.firstDifferingIndex - DRIFT_BEFORE);
        const end = split.reason.firstDifferingIndex + DRIFT_AFTER;
        const context = row.promptIds.concat(row.responseIds).slice(start, Math.min(end, split.reason.candidateContextLength));
        return [{
          callId: split.callId,
          seq: split.seq,
          candidateRowIndex: split.reason.candidateRowIndex,
          firstDifferingIndex: split.reason.firstDifferingIndex,
          differingTokens: split.reason.differingTokens,
          start,
          context,
          prompt: Array.from((prompts.get(split.callId) ?? new Float64Array(0)).subarray(start, end)),
        }];
      });
      const model = light.find((call) => call.upstreamModel !== null)?.upstreamModel ?? null;
      const value: SessionTrajectory = {
        build,
        drift,
        calls: light.map((call) => ({ id: call.id, seq: call.seq, status: call.status, earlierAttempt: call.seq < session.firstCallSeq, model: call.upstreamModel })),
        model,
      };
      cache.set(key, { stamp, value });
      for (const oldest of cache.keys()) {
        if (cache.size <= CACHE_SIZE) break;
        cache.delete(oldest);
      }
      return value;
    },
  };
}
