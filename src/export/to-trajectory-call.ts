// Reduces a stored call to what the trajectory builders read.
import type { StoredCall } from '../store/stored-call.js';
import { type TrajectoryCall, versionsFromBoundaries } from '../trajectory/trajectory-call.js';

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
    policyVersion: call.policyVersion ?? null,
    // Where a keep pause's weight update reached the call in flight, its tokens change version.
    ...(call.versionBoundaries != null && call.capture.tokenIds !== null ? { tokenVersions: versionsFromBoundaries(call.policyVersion, call.versionBoundaries, call.capture.tokenIds.length) } : {}),
    ...(call.versionUnobserved != null ? { versionUnobserved: call.versionUnobserved } : {}),
  };
}
