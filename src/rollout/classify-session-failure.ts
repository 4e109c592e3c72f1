// How an agent stage ended, as exactly one terminal status with a typed reason (DESIGN §6). Pure: it
// reads the attempt's captured call statuses, the harness's exit and the container's OOM counter.
// Everything that is not the agent's doing is infra_error (retried, then left out of its GRPO group).
import type { SessionReason, SessionStatus } from '../store/run-repository.js';

/** One captured call of the current attempt, as much as classification needs. */
export interface CallOutline {
  seq: number;
  /** The call's CallStatus (`ok`, `upstream_error`, `no_token_ids`, ...). */
  status: string;
  /** HTTP status the client was answered with (an upstream 5xx keeps its code). */
  httpStatus: number;
  /** Epoch ms. */
  startedAt: number;
  latencyMs: number;
}

export interface AgentRunFacts {
  exitCode: number;
  /** The session's deadline passed and the harness was killed. */
  timedOut: boolean;
  /** Epoch ms when the harness started and when it ended. */
  agentStartedAt: number;
  agentEndedAt: number;
  /** OOM kills the container's memory cgroup counted (0 when unknown). */
  oomKills: number;
  calls: readonly CallOutline[];
}

export interface SessionClassification {
  status: SessionStatus;
  reason: SessionReason;
  /** One sentence for people. */
  detail: string;
  /** infra_error: a new attempt may succeed. */
  retryable: boolean;
}

/**
 * A deadline is the model's fault when one call held at least this share of the agent's window, or
 * when the harness was cut off mid-call after model calls held this share of it.
 */
export const STALL_SHARE = 0.5;

/** Exit code of a process killed by SIGKILL (the kernel's OOM killer sends it). */
const SIGKILL_EXIT = 137;

/**
 * Call statuses that mean the captured data cannot be trusted, whatever the agent did after. An engine abort
 * (a trainer's pause in abort mode) cut a sample off: the harness saw an error and may have retried and
 * finished, but the trajectory is not the policy's, so the session is retried (or leaves its group).
 */
const INTEGRITY_FAILURES: Readonly<Record<string, SessionReason>> = {
  no_token_ids: 'no_token_ids',
  token_mismatch: 'no_token_ids',
  model_mismatch: 'model_mismatch',
  upstream_model_mismatch: 'model_mismatch',
  engine_aborted: 'engine_aborted',
};

/** The infrastructure reason of one failed call, or undefined when the call's failure is not infrastructure. */
export function infraReasonOfCall(call: Pick<CallOutline, 'status' | 'httpStatus'>): SessionReason | undefined {
  const integrity = INTEGRITY_FAILURES[call.status];
  if (integrity !== undefined) return integrity;
  if (call.status === 'upstream_unavailable') return 'upstream_unavailable';
  if (call.status === 'upstream_timeout') return 'upstream_timeout';
  if (call.status === 'upstream_error' && call.httpStatus >= 500) return 'upstream_5xx';
  return undefined;
}

export function classifySessionFailure(facts: AgentRunFacts): SessionClassification {
  const calls = [...facts.calls].sort((a, b) => a.seq - b.seq);
  const last = calls.at(-1);
  const infra = (reason: SessionReason, detail: string): SessionClassification => ({ status: 'infra_error', reason, detail, retryable: true });
  const integrity = calls.find((call) => INTEGRITY_FAILURES[call.status] !== undefined);
  const transport = calls.filter((call) => infraReasonOfCall(call) !== undefined).at(-1);

  if (facts.timedOut) {
    const lastReason = last === undefined ? undefined : infraReasonOfCall(last);
    if (last !== undefined && lastReason !== undefined) {
      return infra(lastReason, `the deadline passed after the model server failed (call ${last.seq}: ${last.status}${last.status === 'upstream_error' ? ` HTTP ${last.httpStatus}` : ''})`);
    }
    const window = Math.max(1, facts.agentEndedAt - facts.agentStartedAt);
    const longest = longestCall(calls, facts);
    const inFlight = inFlightMs(calls, facts);
    const cutOff = last !== undefined && last.status === 'client_aborted' && last.startedAt + last.latencyMs >= facts.agentEndedAt;
    if (longest !== undefined && (longest.ms >= STALL_SHARE * window || (cutOff && inFlight >= STALL_SHARE * window))) {
      return infra('model_stalled', `the deadline passed while the model was stalled: model calls were in flight for ${seconds(inFlight)} of the agent's ${seconds(window)} (call ${longest.seq}: ${seconds(longest.ms)})`);
    }
    if (integrity !== undefined) return infra(INTEGRITY_FAILURES[integrity.status] as SessionReason, integrityDetail(integrity));
    return { status: 'timeout', reason: 'agent_deadline', detail: `the agent used its whole deadline of ${seconds(window)} while the model answered; it was stopped`, retryable: false };
  }
  if (facts.exitCode === SIGKILL_EXIT && facts.oomKills > 0) {
    return infra('container_oom', `the harness was killed by the container's memory limit (${facts.oomKills} OOM kill(s), exit ${SIGKILL_EXIT})`);
  }
  if (integrity !== undefined) {
    return infra(INTEGRITY_FAILURES[integrity.status] as SessionReason, integrityDetail(integrity));
  }
  if (facts.exitCode === 0) return { status: 'completed', reason: 'agent_finished', detail: 'the harness exited 0', retryable: false };
  if (transport !== undefined) {
    const reason = infraReasonOfCall(transport) as SessionReason;
    return infra(reason, `the model server failed (call ${transport.seq}: ${transport.status}${transport.status === 'upstream_error' ? ` HTTP ${transport.httpStatus}` : ''}); the harness exited with ${facts.exitCode}`);
  }
  if (last?.status === 'context_overflow') {
    return { status: 'agent_error', reason: 'context_overflow', detail: `the conversation outgrew the model's context window; the harness exited with ${facts.exitCode}`, retryable: false };
  }
  if (last?.status === 'upstream_error') {
    return { status: 'agent_error', reason: 'upstream_rejected', detail: `the model server rejected the harness's request (HTTP ${last.httpStatus}); the harness exited with ${facts.exitCode}`, retryable: false };
  }
  return { status: 'agent_error', reason: 'agent_crashed', detail: `the harness exited with code ${facts.exitCode}`, retryable: false };
}

function integrityDetail(call: CallOutline): string {
  return call.status === 'engine_aborted'
    ? `call ${call.seq} was aborted by the inference engine (a pause in abort mode): its sample is cut off`
    : `call ${call.seq} was captured without trustworthy tokens (${call.status})`;
}

/** The call that was in flight longest inside the agent's window (a call still open at the end counts to the end). */
function longestCall(calls: readonly CallOutline[], facts: AgentRunFacts): { seq: number; ms: number } | undefined {
  let best: { seq: number; ms: number } | undefined;
  for (const call of calls) {
    const start = Math.max(call.startedAt, facts.agentStartedAt);
    const end = Math.min(call.startedAt + call.latencyMs, facts.agentEndedAt);
    const ms = Math.max(0, end - start);
    if (best === undefined || ms > best.ms) best = { seq: call.seq, ms };
  }
  return best;
}

/** How long at least one model call was in flight inside the agent's window (union of the calls' intervals). */
function inFlightMs(calls: readonly CallOutline[], facts: AgentRunFacts): number {
  const intervals = calls
    .map((call) => [Math.max(call.startedAt, facts.agentStartedAt), Math.min(call.startedAt + call.latencyMs, facts.agentEndedAt)] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  let total = 0;
  let reach = -Infinity;
  for (const [start, end] of intervals) {
    if (end <= reach) continue;
    total += end - Math.max(start, reach);
    reach = end;
  }
  return total;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
