// A call the inference engine ended early: the cut-off sample is committed as `engine_aborted` (never training
// data), and the client gets the error a restarted server would give (503), so the harness retries after the
// resume. Both relays (streamed and not) answer it this way.
//
// What makes a call aborted is what polar did: it asked the engine to abort (a pause in abort mode, a sleep)
// while the call's answer was still incomplete (InFlightCall.engineAbortSent). The stream's own finish reason is
// only evidence, recorded in the message: vLLM ends an aborted stream with `tool_calls` once tool-call pieces
// were streamed, and sends no finish chunk at all for a request aborted before its first token. A finish reason
// `abort` with no abort from polar (an engine paused by someone else) is engine_aborted too (check-token-capture.ts).
import type { CaptureVerdict } from '../capture/check-token-capture.js';
import type { GatewayErrorBody } from '../providers/canonical.js';
import type { InFlightCall } from './in-flight-versions.js';

/** The client's error when `verdict` says the engine aborted the call; undefined otherwise. */
export function engineAbortedError(verdict: CaptureVerdict): GatewayErrorBody | undefined {
  if (verdict.status !== 'engine_aborted') return undefined;
  return { kind: 'upstream-unavailable', status: 503, message: verdict.error ?? 'the inference engine aborted the request' };
}

/** What the answer reported, for the message: its finish reason, or that it had none. */
function evidence(finishReason: string | null | undefined): string {
  return finishReason === null || finishReason === undefined ? 'the answer reported no finish_reason' : `the answer reported finish_reason "${finishReason}"`;
}

/** The message of a call polar's own abort cut, with the engine's evidence. */
export function abortedByPolarMessage(finishReason: string | null | undefined): string {
  return (
    `polar asked the inference engine to abort its requests (a pause in abort mode, or a sleep) while this call was being answered; ` +
    `${evidence(finishReason)}. The cut-off sample is kept for diagnosis but is never training data, and the session is retried. ` +
    'Pause with mode "keep" (or "hold") to let calls in flight finish.'
  );
}

/** The client's error for a call polar's abort cut (the same 503 as any engine_aborted call); undefined when polar sent none. */
export function abortedByPolarError(call: InFlightCall, finishReason: string | null | undefined): GatewayErrorBody | undefined {
  if (call.engineAbortSent !== true) return undefined;
  return { kind: 'upstream-unavailable', status: 503, message: abortedByPolarMessage(finishReason) };
}
