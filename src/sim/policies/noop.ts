// The noop policy: answers one short text and stops, whatever the request.
import type { Policy } from '../policy.js';

/** Text the noop policy answers. */
export const NOOP_TEXT = 'Nothing to do here: this is the polar simulator running the noop policy.';

/** Always `{ content: NOOP_TEXT }` with finish 'stop' (an empty think block precedes it). */
export function noopPolicy(): Policy {
  return () => ({ content: NOOP_TEXT });
}
