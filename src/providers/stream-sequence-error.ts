// The error a stream encoder raises for an event sequence it cannot render faithfully, and the
// guard that turns it into the protocol's own mid-stream error frames.
import type { GatewayErrorBody } from './canonical.js';

/** An event sequence the encoder cannot render faithfully. */
export class StreamSequenceError extends Error {
  override readonly name = 'StreamSequenceError';
}

/**
 * `encode()`, or, when it throws a StreamSequenceError, `fail` with an `internal` error naming
 * the problem (so the client fails loudly instead of receiving a silently altered turn).
 */
export function guardStreamSequence(encode: () => string, fail: (error: GatewayErrorBody) => string): string {
  try {
    return encode();
  } catch (error) {
    if (!(error instanceof StreamSequenceError)) throw error;
    return fail({ kind: 'internal', status: 500, message: `polar could not encode the stream: ${error.message}` });
  }
}
