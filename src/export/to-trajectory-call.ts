// Reduces a stored call to what the trajectory builders read.
import type { StoredCall } from '../store/stored-call.js';
import type { TrajectoryCall } from '../trajectory/trajectory-call.js';

export function toTrajectoryCall(call: StoredCall): TrajectoryCall {
  return {
    id: call.id,
    seq: call.seq,
    status: call.status,
    promptTokenIds: call.capture.promptTokenIds,
    tokenIds: call.capture.tokenIds,
    logprobs: call.capture.logprobs,
    finishReason: call.capture.finishReason,
    response: call.response,
    // One version for the whole call; a follow-up records where it changed inside a call (tokenVersions).
    policyVersion: call.policyVersion ?? null,
  };
}
