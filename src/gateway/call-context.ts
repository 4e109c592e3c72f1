// Everything one model call carries through the gateway, and how it becomes a CallRecord.
import type { ServerResponse } from 'node:http';
import type { CallMode, CallRecord, CallRecorder, CallSamplingValues, CallStatus, SessionRef, TokenCapture } from '../capture/call-record.js';
import type { CanonicalRequest, CanonicalResponse, GatewayErrorBody, Protocol } from '../providers/canonical.js';
import type { ProtocolAdapter } from '../providers/protocol-adapter.js';
import type { EngineAdapter } from '../upstream/engines/engine.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import type { EngineVersionsWire } from '../upstream/vllm-api-types.js';
import { reconcileEngineVersions } from './engine-reported-versions.js';
import type { InFlightCall } from './in-flight-versions.js';
import { sendError } from './send-json.js';

/** The InFlightCall fields (streamed token count, version boundaries) are the generation gate's (in-flight-versions.ts). */
export interface CallContext extends InFlightCall {
  res: ServerResponse;
  session: SessionRef;
  protocol: Protocol;
  adapter: ProtocolAdapter;
  path: string;
  rawBody: Buffer;
  recorder: CallRecorder;
  upstream: UpstreamClient;
  /** The upstream's family: how the call asks for ids, which route it takes, how the answer is read. */
  engine: EngineAdapter;
  /** Epoch ms and monotonic ms when the request arrived. */
  startedAt: number;
  startedMonotonic: number;
  /** Monotonic ms of the first byte written to the client. */
  firstByteMonotonic: number | null;
  request: CanonicalRequest | null;
  /**
   * Keep the upstream's response bytes of successful calls too (they repeat the token ids and
   * logprobs already stored exactly, so this is off by default; error bodies are always kept).
   */
  recordUpstreamResponse: boolean;
  upstreamModel: string | null;
  upstreamRequest: Buffer | null;
  /** The `model` field of the upstream's answer, set by the relays. */
  responseModel?: string | null;
  requestedSampling?: CallSamplingValues | null;
  sentSampling?: CallSamplingValues | null;
  /** How the call went upstream (token ids or chat), once it was sent; on a token-in fallback, why. */
  mode?: CallMode;
  tokenInFallback?: { reason: string; detail: string } | null;
  /** Base URL of the upstream replica the call is sent to. */
  upstreamReplica?: string;
  /** Set (to why) when the call's replica was marked down while the call was in flight. */
  replicaDown?: string;
  /** The committed record, once there is one. */
  committed?: CallRecord;
  /** Runs after the record is committed (token-in: extend the lineage). */
  afterCommit?: (record: CallRecord) => void;
  /** The policy version in force when the call was sent upstream (set by the generation gate). */
  policyVersion?: number;
}

export const EMPTY_CAPTURE: TokenCapture = {
  promptTokenIds: null,
  tokenIds: null,
  logprobs: null,
  finishReason: null,
  stopReason: null,
  promptTokens: null,
  completionTokens: null,
};

export interface CallOutcome {
  status: CallStatus;
  error: string | null;
  httpStatus: number;
  capture?: TokenCapture;
  response?: CanonicalResponse | null;
  upstreamResponse?: Buffer | null;
  /** The weights the engine says sampled each token (a streamed SGLang /generate), held against the boundaries. */
  engineVersions?: EngineVersionsWire | null;
}

/**
 * Builds the record for this call and commits it (off the event loop when the recorder is the store).
 * Resolves with the call id after the commit; rejects if the commit fails.
 */
export async function commitCall(context: CallContext, outcome: CallOutcome): Promise<number> {
  const now = performance.now();
  const responseModel = context.responseModel ?? null;
  // An answer from another model than the one sent is not this policy's sample: infrastructure fault.
  const mismatch = outcome.status === 'ok' && responseModel !== null && context.upstreamModel !== null && responseModel !== context.upstreamModel;
  const capture = outcome.capture ?? EMPTY_CAPTURE;
  const versions = reconcileEngineVersions(context, outcome.engineVersions, capture.tokenIds?.length ?? 0);
  const record: CallRecord = {
    sessionId: context.session.id,
    protocol: context.protocol,
    path: context.path,
    stream: context.request?.stream ?? false,
    status: mismatch ? 'model_mismatch' : outcome.status,
    error: mismatch
      ? `polar sent model "${context.upstreamModel}" but the upstream answered as "${responseModel}"; the call is kept but not trainable`
      : outcome.error,
    httpStatus: outcome.httpStatus,
    requestedModel: context.request?.model ?? null,
    upstreamModel: context.upstreamModel,
    responseModel,
    requestedSampling: context.requestedSampling ?? null,
    sentSampling: context.sentSampling ?? null,
    clientRequest: context.rawBody,
    upstreamRequest: context.upstreamRequest,
    upstreamResponse: outcome.status === 'ok' && !context.recordUpstreamResponse ? null : (outcome.upstreamResponse ?? null),
    capture,
    response: outcome.response ?? null,
    startedAt: context.startedAt,
    ttfbMs: context.firstByteMonotonic === null ? null : round(context.firstByteMonotonic - context.startedMonotonic),
    latencyMs: round(now - context.startedMonotonic),
    mode: context.mode ?? null,
    tokenInFallback: context.tokenInFallback ?? null,
    policyVersion: context.policyVersion ?? null,
    versionBoundaries: versions.versionBoundaries ?? null,
    versionUnobserved: versions.versionUnobserved ?? null,
    upstreamReplica: context.upstreamRequest === null ? null : (context.upstreamReplica ?? null),
    engine: context.upstreamRequest === null ? null : context.engine.name,
  };
  const id = await context.recorder.recordCall(record);
  context.committed = record;
  try {
    context.afterCommit?.(record);
  } catch {
    // The call is committed; failed lineage bookkeeping only sends later calls the chat way (no-lineage).
  }
  return id;
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Answers the client with an error in its protocol's shape (before any byte of an answer was sent). */
export function answerError(context: CallContext, error: GatewayErrorBody): void {
  markFirstByte(context);
  sendError(context.res, context.adapter, error);
}

/** Marks the first byte to the client (for time-to-first-byte). */
export function markFirstByte(context: CallContext): void {
  context.firstByteMonotonic ??= performance.now();
}
