// A call the inference engine ended early (finish_reason `abort`: a trainer's pause in abort mode, a sleep):
// the cut-off sample is committed as `engine_aborted`, and the client gets the error a restarted server would
// give (503), so the harness retries after the resume. Both relays (streamed and not) answer it this way.
import type { CaptureVerdict } from '../capture/check-token-capture.js';
import type { GatewayErrorBody } from '../providers/canonical.js';

/** The client's error when `verdict` says the engine aborted the call; undefined otherwise. */
export function engineAbortedError(verdict: CaptureVerdict): GatewayErrorBody | undefined {
  if (verdict.status !== 'engine_aborted') return undefined;
  return { kind: 'upstream-unavailable', status: 503, message: verdict.error ?? 'the inference engine aborted the request' };
}
