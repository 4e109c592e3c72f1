// When a call's prompt ids or request bytes are stored as a delta against the previous call.

/** Every call whose seq is a multiple of this is stored in full, so a decode walks at most 31 links. */
export const CHECKPOINT_INTERVAL = 32;

/**
 * True when a delta is worth storing: not a checkpoint call, and the part shared with the base is at
 * least half of the value (otherwise the chain would cost more to walk than it saves).
 */
export function shouldStoreDelta(seq: number, sharedLength: number, totalLength: number): boolean {
  return seq % CHECKPOINT_INTERVAL !== 0 && sharedLength > 0 && sharedLength * 2 >= totalLength;
}
