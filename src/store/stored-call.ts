// A call as read back from the store: the CallRecord fields, fully decoded, plus its id and position.
import type { CallRecord } from '../capture/call-record.js';

/** The raw wire bytes of a call, byte-identical to what was recorded. */
export type CallRawBytes = Pick<CallRecord, 'clientRequest' | 'upstreamRequest' | 'upstreamResponse'>;

export interface StoredCall extends Omit<CallRecord, keyof CallRawBytes> {
  id: number;
  /** 0-based position of the call in its session, in recording order. */
  seq: number;
  /** The raw bytes when read with `withRaw: true`; null otherwise (they are costly to decode). */
  raw: CallRawBytes | null;
}

/** A StoredCall read with `withRaw: true`. */
export interface StoredCallWithRaw extends StoredCall {
  raw: CallRawBytes;
}

export interface ReadCallsOptions {
  /** Also decompress and rebuild the raw bytes. Default false. */
  withRaw?: boolean;
}
