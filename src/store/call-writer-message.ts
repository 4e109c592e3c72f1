// The messages between the gateway's thread and the call-writer worker: a CallRecord made cheap to post.
import type { CallRecord, TokenCapture } from '../capture/call-record.js';
import type { Amendment, InsertableCall } from './insert-call.js';

/**
 * A CallRecord whose token ids and logprobs travel as Float64Arrays (exact for every number) and whose
 * byte fields are fresh copies: every backing buffer is then transferred, not cloned element by element.
 */
export interface WireRecord extends Omit<CallRecord, 'capture' | 'clientRequest' | 'upstreamRequest' | 'upstreamResponse'> {
  capture: Omit<TokenCapture, 'promptTokenIds' | 'tokenIds' | 'logprobs'> & {
    promptTokenIds: Float64Array | null;
    tokenIds: Float64Array | null;
    logprobs: Float64Array | null;
  };
  clientRequest: Uint8Array;
  upstreamRequest: Uint8Array | null;
  upstreamResponse: Uint8Array | null;
}

export interface WriteRequest {
  id: number;
  record: WireRecord;
}

/** An error crossing the thread boundary: enough to rebuild a typed error on the other side. */
export interface WireError {
  name: string;
  message: string;
  hint?: string;
  code?: string;
}

export type WriteResult = { id: number; callId: number; amended?: Amendment } | { id: number; error: WireError };

/** The worker's first message, or its last when it cannot open the database. */
export type WorkerStatus = { ready: true } | { ready: false; error: WireError };

// Copies with `set` into a fresh array: measured 3-4x faster than `new Float64Array(array)` and than
// `Float64Array.from`, and ~8x faster than `new Uint8Array(buffer)`, on 17k-token prompts and 69 KB bodies.
function numbers(values: readonly number[] | null): Float64Array | null {
  if (values === null) return null;
  const out = new Float64Array(values.length);
  out.set(values);
  return out;
}

function bytes(data: Uint8Array | null): Uint8Array | null {
  if (data === null) return null;
  const out = new Uint8Array(data.length);
  out.set(data);
  return out;
}

/** The record as posted, with the list of buffers to transfer (each owned by the message alone). */
export function toWireRecord(record: CallRecord): { wire: WireRecord; transfer: ArrayBuffer[] } {
  const { capture } = record;
  const wire: WireRecord = {
    ...record,
    capture: { ...capture, promptTokenIds: numbers(capture.promptTokenIds), tokenIds: numbers(capture.tokenIds), logprobs: numbers(capture.logprobs) },
    clientRequest: bytes(record.clientRequest) as Uint8Array,
    upstreamRequest: bytes(record.upstreamRequest),
    upstreamResponse: bytes(record.upstreamResponse),
  };
  const views = [wire.capture.promptTokenIds, wire.capture.tokenIds, wire.capture.logprobs, wire.clientRequest, wire.upstreamRequest, wire.upstreamResponse];
  return { wire, transfer: views.filter((view) => view !== null).map((view) => view.buffer as ArrayBuffer) };
}

function asBuffer(data: Uint8Array | null): Buffer | null {
  return data === null ? null : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Inverse of toWireRecord, for the inserter: no copies, the numbers stay in their Float64Arrays. */
export function fromWireRecord(wire: WireRecord): InsertableCall {
  return {
    ...wire,
    clientRequest: asBuffer(wire.clientRequest) as Buffer,
    upstreamRequest: asBuffer(wire.upstreamRequest),
    upstreamResponse: asBuffer(wire.upstreamResponse),
  };
}

export function toWireError(error: unknown): WireError {
  const e = error as { name?: unknown; message?: unknown; hint?: unknown; code?: unknown };
  return {
    name: typeof e?.name === 'string' ? e.name : 'Error',
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(typeof e?.hint === 'string' ? { hint: e.hint } : {}),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}
