// When a call's prompt ids or request bytes are stored as a delta against an earlier call, and when in full.
//
// A full copy (a checkpoint) costs the whole prompt: with one every 32 calls, a session whose prompt grows
// by k tokens a turn stored ~P/32k extra bytes per new token after call 32, a term that grows with the
// session (quadratic storage). Checkpoints now double their spacing (64, 128, 256, then every 256), so a full
// copy is paid for by at least as many calls as came before it: storage stays within a constant factor of
// the deltas alone (linear in turns), and a decode walks at most 255 links (63 in the first 128 calls).
// Decoding never depends on this schedule: every stored delta names its base call.

/** The first checkpoint after seq 0 (calls 1..63 are deltas). */
export const CHECKPOINT_INTERVAL = 64;
/** Checkpoint spacing stops doubling here. */
export const MAX_CHECKPOINT_INTERVAL = 256;

/** The largest checkpoint seq <= `seq`: 0, 64, 128, 256, 512, 768, ... */
export function lastCheckpoint(seq: number): number {
  if (seq < CHECKPOINT_INTERVAL) return 0;
  if (seq >= MAX_CHECKPOINT_INTERVAL) return Math.floor(seq / MAX_CHECKPOINT_INTERVAL) * MAX_CHECKPOINT_INTERVAL;
  let checkpoint = CHECKPOINT_INTERVAL;
  while (checkpoint * 2 <= seq) checkpoint *= 2;
  return checkpoint;
}

/** True when the call at `seq` stores its values in full. */
export function isCheckpoint(seq: number): boolean {
  return lastCheckpoint(seq) === seq;
}

/**
 * True when a delta is worth storing: not a checkpoint call, and the part shared with the base is at
 * least half of the value (otherwise the chain would cost more to walk than it saves).
 */
export function shouldStoreDelta(seq: number, sharedLength: number, totalLength: number): boolean {
  return !isCheckpoint(seq) && sharedLength > 0 && sharedLength * 2 >= totalLength;
}
