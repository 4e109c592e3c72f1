// What the gateway captures for one model call, handed to a CallRecorder (the store implements it).
import type { CanonicalResponse, Protocol } from '../providers/canonical.js';
import type { EngineName } from '../upstream/engines/engine-name.js';
import type { SecurityEvent } from './security-event.js';

/**
 * Terminal status of one captured call. Only `ok` calls are training data; every other status is
 * kept for diagnosis and never exported as trainable.
 */
export type CallStatus =
  | 'ok'
  /** The upstream answered but returned no token ids (not vLLM >= 0.10.2, or return_token_ids ignored). */
  | 'no_token_ids'
  /** Token ids, logprobs and usage disagree in length; the capture cannot be trusted. */
  | 'token_mismatch'
  /** The upstream answered with an HTTP error (4xx/5xx other than context overflow). */
  | 'upstream_error'
  /** The upstream could not be reached (connection refused, reset before any answer), or its connection died mid-stream. */
  | 'upstream_unavailable'
  /** The upstream did not answer (or stalled mid-stream) within the gateway's timeout. */
  | 'upstream_timeout'
  /** The prompt plus max tokens exceeds the model's context window. */
  | 'context_overflow'
  /** The client went away before the answer was complete; the upstream request was cancelled. */
  | 'client_aborted'
  /** The client's request could not be parsed or translated. */
  | 'invalid_request'
  /** A bug in polar; the message says where. */
  | 'internal_error'
  /**
   * The upstream answered as another model than the one polar sent (an infrastructure fault: the
   * server's routing or adapter names changed). The client still got its answer; never trained on.
   */
  | 'model_mismatch'
  /**
   * The inference engine ended the request early (finish_reason `abort`: a trainer's pause in abort mode, a
   * sleep): the tokens are a cut-off sample. The client got an error; never trained on, and the session is
   * an infrastructure failure (retried).
   */
  | 'engine_aborted';

export const CALL_STATUSES: readonly CallStatus[] = [
  'ok',
  'no_token_ids',
  'token_mismatch',
  'upstream_error',
  'upstream_unavailable',
  'upstream_timeout',
  'context_overflow',
  'client_aborted',
  'invalid_request',
  'internal_error',
  'model_mismatch',
  'engine_aborted',
];

/** Sampling values of one call in upstream (snake_case) names. */
export interface CallSamplingValues {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  max_tokens?: number;
  seed?: number;
}

/** The token-level capture of one completion, exactly as the upstream returned it. */
export interface TokenCapture {
  /** Top-level `prompt_token_ids` of the upstream response: what the model actually saw. */
  promptTokenIds: number[] | null;
  /**
   * The same ids still as the upstream's JSON text (`[1,2,...]`), promptTokenIds then null: the gateway
   * leaves parsing a long prompt's ids to the store's commit worker, off its event loop. A recorder
   * resolves it (resolvePromptIdsJson) before it stores or checks the capture.
   */
  promptTokenIdsJson?: string;
  /** `choices[0].token_ids`: the sampled ids, before any reasoning or tool parsing. */
  tokenIds: number[] | null;
  /** `choices[0].logprobs.content[i].logprob`, one per sampled token. */
  logprobs: number[] | null;
  /** Upstream `finish_reason` (`stop`, `length`, `tool_calls`, ...). */
  finishReason: string | null;
  /** Upstream `stop_reason`: the matched stop string or token id, or null for EOS. */
  stopReason: string | number | null;
  /** Upstream usage, when reported. */
  promptTokens: number | null;
  completionTokens: number | null;
}

/** A TokenCapture whose numbers may be typed arrays (the store's commit worker holds them as Float64Arrays). */
export type TokenCaptureLike = Omit<TokenCapture, 'promptTokenIds' | 'tokenIds' | 'logprobs'> & {
  promptTokenIds: ArrayLike<number> | null;
  tokenIds: ArrayLike<number> | null;
  logprobs: ArrayLike<number> | null;
};

/** Everything recorded about one call. Raw byte fields are stored compressed. */
export interface CallRecord {
  sessionId: number;
  protocol: Protocol;
  /** Client path and query, e.g. `/v1/messages?beta=true`. */
  path: string;
  stream: boolean;
  status: CallStatus;
  /** Human-readable reason for a non-ok status. */
  error: string | null;
  /** HTTP status the client was answered with (200 for a stream that ended in an in-band error). */
  httpStatus: number;
  /** The model name the client asked for. */
  requestedModel: string | null;
  /** The model name sent upstream. */
  upstreamModel: string | null;
  /** The `model` field of the upstream's response (null when it did not answer). */
  responseModel?: string | null;
  /** The client's own sampling values, as parsed from its request (null when it could not be parsed). */
  requestedSampling?: CallSamplingValues | null;
  /** The sampling values polar actually sent upstream (null when nothing was sent). */
  sentSampling?: CallSamplingValues | null;
  /** The client's request body, byte for byte. */
  clientRequest: Buffer;
  /** The exact body sent upstream, or null if nothing was sent. */
  upstreamRequest: Buffer | null;
  /** The upstream's response bytes (JSON body or raw SSE text), or null. */
  upstreamResponse: Buffer | null;
  capture: TokenCapture;
  /** The assistant turn as parsed from the upstream (for reading and SFT export). */
  response: CanonicalResponse | null;
  /** Epoch milliseconds when the gateway received the request. */
  startedAt: number;
  /** Milliseconds from receipt to the first byte sent to the client. */
  ttfbMs: number | null;
  /** Milliseconds from receipt to the capture being complete. */
  latencyMs: number;
  /** How the call went upstream: as token ids continuing a lineage, or as chat (null: nothing was sent). */
  mode?: CallMode | null;
  /** Token-in mode only: why this call went the chat way (typed reason and where the splice broke). */
  tokenInFallback?: { reason: string; detail: string } | null;
  /** The trainer's policy version in force when the call was sent upstream (`polar serve` pause/resume). */
  policyVersion?: number | null;
  /**
   * Where the version of the call's sampled tokens changed while it was in flight (a keep pause resumed with new
   * weights): `[token index, version]` pairs, ascending; tokens before the first index carry `policyVersion`.
   * Null or absent: every sampled token carries `policyVersion`.
   */
  versionBoundaries?: [number, number][] | null;
  /**
   * Why the call's per-token versions cannot be known (`non-streaming-upstream`: a keep pause changed the weights
   * while its answer was not streamed; `weights-changed-while-running`: the weights changed under it on an engine
   * polar had not paused; `stream-interval`: the engine streams every N > 1 tokens; `engine-disagrees`: the
   * engine's weight_version labels change elsewhere; gateway/in-flight-versions.ts). Such a call is never trained
   * on. Null or absent: known.
   */
  versionUnobserved?: string | null;
  /** Base URL of the upstream replica the call was sent to (null: nothing was sent). */
  upstreamReplica?: string | null;
  /** The server family the call was sent to (`vllm`, `sglang`; null: nothing was sent). With `mode` it names the route: chat, /v1/completions or /generate. */
  engine?: EngineName | null;
}

/** How a call reached the model. */
export type CallMode = 'token_in' | 'chat';

/** A session: one agent run, identified by the API key its harness was configured with. */
export interface SessionRef {
  id: number;
  key: string;
  /** Set when the upstream is polar's simulator; exports mark such trajectories. */
  simulated: boolean;
}

/**
 * How the gateway persists what it captured. The store implements it; tests may fake it.
 * Contract: `recordCall` returns (or resolves) only after the record is durably committed, and throws
 * (or rejects) on failure. A capture carrying `promptTokenIdsJson` is stored with its ids parsed
 * (resolvePromptIdsJson); when that changes the status, `record.status` and `error` are updated to it.
 */
export interface CallRecorder {
  /** The session for an API key, or undefined when the key is unknown. */
  findSession(key: string): SessionRef | undefined;
  /** Commits one call and returns its id (the store answers with a promise: it commits in a worker). */
  recordCall(record: CallRecord): number | Promise<number>;
  /** Commits a refused action of a session's container (optional: fakes may leave it out). */
  recordSecurityEvent?(event: SecurityEvent): void;
}
