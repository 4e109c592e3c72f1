// Turns a `calls` row (scalars and token blobs) plus its rebuilt prompt ids and raw bytes into a StoredCall.
import { CALL_STATUSES, type CallSamplingValues, type CallStatus } from '../capture/call-record.js';
import { PROTOCOLS, type CanonicalResponse, type Protocol } from '../providers/canonical.js';
import { DataError } from '../errors.js';
import type { CallScalarRow } from './call-row.js';
import { unpackNullableNumberArray } from './pack-number-array.js';
import type { CallRawBytes, StoredCall } from './stored-call.js';

function parseProtocol(value: string, id: number): Protocol {
  const protocol = PROTOCOLS.find((p) => p === value);
  if (protocol === undefined) throw new DataError(`Call ${id} has unknown protocol '${value}'.`, 'The database may be corrupt or written by a newer polar.');
  return protocol;
}

function parseStatus(value: string, id: number): CallStatus {
  const status = CALL_STATUSES.find((s) => s === value);
  if (status === undefined) throw new DataError(`Call ${id} has unknown status '${value}'.`, 'The database may be corrupt or written by a newer polar.');
  return status;
}

function parseStopReason(text: string | null, id: number): string | number | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new DataError(`Call ${id} has a stop_reason that is neither a string nor a number.`, 'The database may be corrupt.');
  }
  return value;
}

function parseSampling(text: string | null): CallSamplingValues | null {
  return text === null ? null : (JSON.parse(text) as CallSamplingValues);
}

function parseBoundaries(text: string, id: number): [number, number][] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((n) => Number.isInteger(n) && n >= 0))) {
    throw new DataError(`Call ${id} has malformed version_boundaries.`, 'The database may be corrupt.');
  }
  return value as [number, number][];
}

export function decodeCallRow(row: CallScalarRow, promptTokenIds: number[] | null, raw: CallRawBytes | null): StoredCall {
  return {
    id: row.id,
    seq: row.seq,
    sessionId: row.session_id,
    protocol: parseProtocol(row.protocol, row.id),
    path: row.path,
    stream: row.stream === 1,
    status: parseStatus(row.status, row.id),
    error: row.error,
    httpStatus: row.http_status,
    requestedModel: row.requested_model,
    upstreamModel: row.upstream_model,
    // Optional fields: present only when stored (older rows and records without them round-trip unchanged).
    ...(row.response_model === null ? {} : { responseModel: row.response_model }),
    ...(row.requested_sampling === null ? {} : { requestedSampling: parseSampling(row.requested_sampling) }),
    ...(row.sent_sampling === null ? {} : { sentSampling: parseSampling(row.sent_sampling) }),
    ...(row.mode === null ? {} : { mode: row.mode === 'token_in' ? 'token_in' : 'chat' }),
    ...(row.fallback_reason === null ? {} : { tokenInFallback: { reason: row.fallback_reason, detail: row.fallback_detail ?? '' } }),
    ...(row.policy_version === null ? {} : { policyVersion: row.policy_version }),
    ...(row.upstream_replica === null ? {} : { upstreamReplica: row.upstream_replica }),
    ...(row.engine === 'vllm' || row.engine === 'sglang' ? { engine: row.engine } : {}),
    ...(row.version_boundaries === null ? {} : { versionBoundaries: parseBoundaries(row.version_boundaries, row.id) }),
    ...(row.version_unobserved === null ? {} : { versionUnobserved: row.version_unobserved }),
    capture: {
      promptTokenIds,
      tokenIds: unpackNullableNumberArray(row.token_ids),
      logprobs: unpackNullableNumberArray(row.logprobs),
      finishReason: row.finish_reason,
      stopReason: parseStopReason(row.stop_reason, row.id),
      promptTokens: row.prompt_tokens,
      completionTokens: row.completion_tokens,
    },
    response: row.response === null ? null : (JSON.parse(row.response) as CanonicalResponse),
    startedAt: row.started_at,
    ttfbMs: row.ttfb_ms,
    latencyMs: row.latency_ms,
    raw,
  };
}
