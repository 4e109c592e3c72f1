// JSON errors of `polar serve`: {"error":{"type","message","hint"?}} with the HTTP status of the failure.
import { PolarError } from '../errors.js';
import { ControlUnsupportedError, EngineControlError } from '../upstream/engines/engine-control.js';
import { CaptureUnavailableError } from '../rollout/batch-capture.js';

export type ServeErrorType =
  | 'unauthorized'
  | 'payload_too_large'
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  /** 409: the batch's capture mode (token_in | chat) is one an upstream cannot serve; the hint says the fix. */
  | 'capture_unavailable'
  | 'engine_error'
  | 'internal';

/** An error the HTTP layer answers with as is. */
export class HttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 413 | 500 | 502,
    readonly type: ServeErrorType,
    message: string,
  ) {
    super(message);
  }
}

export interface ServeErrorBody {
  error: { type: ServeErrorType; message: string; hint?: string };
}

/** The status and body for anything a handler threw: typed polar errors map to 4xx, the rest to 500. */
export function toErrorResponse(error: unknown): { status: HttpError['status']; body: ServeErrorBody } {
  if (error instanceof HttpError) return { status: error.status, body: { error: { type: error.type, message: error.message } } };
  // An engine that lacks what was asked (409, the fix in the hint) or refused / failed it (502).
  if (error instanceof CaptureUnavailableError) return { status: 409, body: { error: { type: 'capture_unavailable', message: error.message, hint: error.hint ?? '' } } };
  if (error instanceof ControlUnsupportedError) return { status: 409, body: { error: { type: 'conflict', message: error.message, hint: error.hint ?? '' } } };
  if (error instanceof EngineControlError) return { status: 502, body: { error: { type: 'engine_error', message: error.message, ...(error.hint !== undefined ? { hint: error.hint } : {}) } } };
  if (error instanceof PolarError) {
    const status = error.code === 'idempotency-conflict' || error.code === 'generation-conflict' ? 409 : error.code === 'not-found' ? 404 : error.code === 'internal' ? 500 : 400;
    const type: ServeErrorType = status === 409 ? 'conflict' : status === 404 ? 'not_found' : status === 500 ? 'internal' : 'invalid_request';
    return { status, body: { error: { type, message: error.message, ...(error.hint !== undefined ? { hint: error.hint } : {}) } } };
  }
  return { status: 500, body: { error: { type: 'internal', message: error instanceof Error ? error.message : String(error) } } };
}
