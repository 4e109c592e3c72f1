// Which earlier call a new call is diffed against: the recent call of the same lineage (longest shared prompt prefix).
import { lastCheckpoint } from './delta-policy.js';
import type { PriorCall } from './encode-call-fields.js';
import { commonPrefixLength } from './token-delta.js';

/** An earlier call of the session, decoded, with its seq. */
export type RecentCall = PriorCall & { seq: number };

/** The chosen call, and how many prompt ids it shares (null when not compared: no prompt ids on either side). */
export interface PriorChoice {
  call: RecentCall;
  sharedLen: number | null;
}

/** How many recent calls of a session are candidates: an interleaved side call must not hide the main lineage. */
export const LINEAGE_WINDOW = 8;

/**
 * The candidate whose prompt + sampled ids share the longest prefix with `prompt` (the most recent on
 * ties, or when the call has no prompt ids). Candidates before the last checkpoint are skipped, so a
 * decode walks back at most to it (see delta-policy). The shared length comes back with it, so the
 * delta need not compare the two again.
 */
export function choosePrior(recent: readonly RecentCall[], prompt: ArrayLike<number> | null, seq: number): PriorChoice | undefined {
  const checkpoint = lastCheckpoint(seq);
  const eligible = recent.filter((call) => call.seq >= checkpoint);
  const latest = eligible.at(-1);
  if (latest === undefined) return undefined;
  if (prompt === null) return { call: latest, sharedLen: null };
  let best = latest;
  let bestShared = latest.promptBase === null ? -1 : commonPrefixLength(latest.promptBase, prompt);
  for (let i = eligible.length - 2; i >= 0; i--) {
    const call = eligible[i]!;
    // Only a base that also agrees with the prompt at index bestShared can share more: checking that one id
    // first skips the full comparison for the usual candidates (older calls of the lineage, shorter bases; a
    // prompt already shared whole), which on 100k-token prompts cost up to 8 full scans per call.
    const base = call.promptBase;
    if (base === null || bestShared >= prompt.length || base.length <= bestShared || base[bestShared] !== prompt[bestShared]) continue;
    const shared = commonPrefixLength(base, prompt);
    if (shared > bestShared) {
      best = call;
      bestShared = shared;
    }
  }
  return { call: best, sharedLen: bestShared < 0 ? null : bestShared };
}
