// Inserts one call in a synchronous IMMEDIATE transaction: assigns seq, diffs against the recent call of its lineage, commits.
import type Database from 'better-sqlite3';
import type { CallRecord, CallStatus, TokenCaptureLike } from '../capture/call-record.js';
import { resolvePromptIdsJson } from '../capture/resolve-prompt-ids-json.js';
import { DataError } from '../errors.js';
import { compressBytes } from './compress-bytes.js';
import { choosePrior, LINEAGE_WINDOW, type RecentCall } from './choose-prior.js';
import { encodePromptIds, encodeRequestBytes, encodeSampling, type PriorCall } from './encode-call-fields.js';
import { isUint32, packNullableNumberArray } from './pack-number-array.js';
import type { CallReader } from './read-calls.js';

/** Sessions whose recent calls stay decoded in memory, so an insert need not walk a chain. */
const PRIOR_CACHE_SIZE = 64;

const INSERT_SQL = `INSERT INTO calls (
  session_id, seq, protocol, path, stream, status, error, http_status, requested_model, upstream_model,
  started_at, ttfb_ms, latency_ms, finish_reason, stop_reason, prompt_tokens, completion_tokens, response,
  prompt_ids_tail, prompt_ids_len, prompt_base_call_id, prompt_shared_len, token_ids, token_ids_len, logprobs,
  client_request, client_request_base_call_id, client_request_prefix_len, client_request_suffix_len,
  upstream_request, upstream_request_base_call_id, upstream_request_prefix_len, upstream_request_suffix_len,
  upstream_response, requested_sampling, sent_sampling, response_model, mode, fallback_reason, fallback_detail, policy_version,
  upstream_replica, engine, version_boundaries, version_unobserved
) VALUES (
  @session_id, @seq, @protocol, @path, @stream, @status, @error, @http_status, @requested_model, @upstream_model,
  @started_at, @ttfb_ms, @latency_ms, @finish_reason, @stop_reason, @prompt_tokens, @completion_tokens, @response,
  @prompt_ids_tail, @prompt_ids_len, @prompt_base_call_id, @prompt_shared_len, @token_ids, @token_ids_len, @logprobs,
  @client_request, @client_request_base_call_id, @client_request_prefix_len, @client_request_suffix_len,
  @upstream_request, @upstream_request_base_call_id, @upstream_request_prefix_len, @upstream_request_suffix_len,
  @upstream_response, @requested_sampling, @sent_sampling, @response_model, @mode, @fallback_reason, @fallback_detail, @policy_version,
  @upstream_replica, @engine, @version_boundaries, @version_unobserved
)`;

/**
 * A CallRecord whose captured numbers may be typed arrays: the commit worker receives them as Float64Arrays
 * and stores them without turning them back into arrays of numbers.
 */
export type InsertableCall = Omit<CallRecord, 'capture'> & { capture: TokenCaptureLike };

/**
 * Prompt ids followed by sampled ids, in one counted pass: a Uint32Array when every value is exactly one,
 * else a number[]. It is what the next call of the lineage is diffed against, and its first part is this
 * call's prompt for its own delta.
 */
function promptBaseOf(prompt: ArrayLike<number>, sampled: ArrayLike<number> | null): ArrayLike<number> {
  const out = new Uint32Array(prompt.length + (sampled?.length ?? 0));
  for (let index = 0; index < prompt.length; index++) {
    const value = prompt[index] as number;
    if (!isUint32(value)) return concat(prompt, sampled);
    out[index] = value;
  }
  if (sampled !== null) {
    for (let index = 0; index < sampled.length; index++) {
      const value = sampled[index] as number;
      if (!isUint32(value)) return concat(prompt, sampled);
      out[prompt.length + index] = value;
    }
  }
  return out;
}

function concat(prompt: ArrayLike<number>, sampled: ArrayLike<number> | null): number[] {
  return sampled === null ? Array.from(prompt) : Array.from(prompt).concat(Array.from(sampled));
}

function toPriorCall(id: number, seq: number, record: InsertableCall, promptBase: ArrayLike<number> | null): RecentCall {
  return {
    id,
    seq,
    promptBase,
    clientRequest: Buffer.from(record.clientRequest),
    upstreamRequest: record.upstreamRequest === null ? null : Buffer.from(record.upstreamRequest),
  };
}

/** Turns SQLite's foreign-key failure into the typed error for an unknown session. */
function toInsertError(error: unknown, record: InsertableCall): unknown {
  if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new DataError(`Cannot record a call for session ${record.sessionId}: no such session.`, 'Create the session first (polar sessions new).');
  }
  return error;
}

/**
 * The outcome of one record of a batch: its call id, or why it was not stored. `amended`: the status the call
 * was stored with, when resolving its prompt ids changed it (see resolvePromptIdsJson).
 */
export type BatchOutcome = { id: number; amended?: Amendment } | { error: unknown };

export interface Amendment {
  status: CallStatus;
  error: string | null;
}

export interface CallInserter {
  /**
   * Inserts one call in its own IMMEDIATE transaction; returns only after the commit. Prompt ids left as
   * JSON text are parsed first, in place (resolvePromptIdsJson: the record's status may change).
   */
  one(record: InsertableCall): number;
  /**
   * Inserts the records in ONE IMMEDIATE transaction, each in its own savepoint: a record that fails
   * (unknown session) is left out and the others are kept. Returns after the commit; throws (and
   * stores none of them) only when the transaction itself fails (disk full, busy past the timeout).
   */
  batch(records: readonly InsertableCall[]): BatchOutcome[];
}

export function createCallInserter(db: Database.Database, reader: CallReader): CallInserter {
  const lastCall = db.prepare<[number], { id: number; seq: number }>('SELECT id, seq FROM calls WHERE session_id = ? ORDER BY seq DESC LIMIT 1');
  const insert = db.prepare<[Record<string, unknown>]>(INSERT_SQL);
  /** Map order is recency order: the first key is evicted first. */
  const priors = new Map<number, RecentCall[]>();

  const write = db.transaction((record: InsertableCall): number => {
    const last = lastCall.get(record.sessionId);
    const seq = last === undefined ? 0 : last.seq + 1;
    const cached = priors.get(record.sessionId);
    const recent = last === undefined ? [] : cached?.at(-1)?.id === last.id ? cached : [{ ...reader.loadPrior(last.id), seq: last.seq }];
    const { capture } = record;
    // The prompt ids as a view of the lineage base this call leaves behind (one pass over the ids for both).
    const promptBase = capture.promptTokenIds === null ? null : promptBaseOf(capture.promptTokenIds, capture.tokenIds);
    const promptIds = promptBase instanceof Uint32Array ? promptBase.subarray(0, capture.promptTokenIds!.length) : capture.promptTokenIds;
    const choice = choosePrior(recent, promptIds, seq);
    const prior: PriorCall | undefined = choice?.call;
    const prompt = encodePromptIds(prior, promptIds, seq, choice?.sharedLen);
    const client = encodeRequestBytes(prior?.id, prior?.clientRequest, record.clientRequest, seq);
    const upstream = encodeRequestBytes(prior?.id, prior?.upstreamRequest, record.upstreamRequest, seq);
    const result = insert.run({
      session_id: record.sessionId,
      seq,
      protocol: record.protocol,
      path: record.path,
      stream: record.stream ? 1 : 0,
      status: record.status,
      error: record.error,
      http_status: record.httpStatus,
      requested_model: record.requestedModel,
      upstream_model: record.upstreamModel,
      started_at: record.startedAt,
      ttfb_ms: record.ttfbMs,
      latency_ms: record.latencyMs,
      mode: record.mode ?? null,
      fallback_reason: record.tokenInFallback?.reason ?? null,
      fallback_detail: record.tokenInFallback?.detail ?? null,
      policy_version: record.policyVersion ?? null,
      upstream_replica: record.upstreamReplica ?? null,
      engine: record.engine ?? null,
      version_boundaries: record.versionBoundaries == null || record.versionBoundaries.length === 0 ? null : JSON.stringify(record.versionBoundaries),
      version_unobserved: record.versionUnobserved ?? null,
      finish_reason: capture.finishReason,
      stop_reason: capture.stopReason === null ? null : JSON.stringify(capture.stopReason),
      prompt_tokens: capture.promptTokens,
      completion_tokens: capture.completionTokens,
      response: record.response === null ? null : JSON.stringify(record.response),
      prompt_ids_tail: prompt.tail,
      prompt_ids_len: promptIds?.length ?? null,
      prompt_base_call_id: prompt.baseCallId,
      prompt_shared_len: prompt.sharedLen,
      token_ids: packNullableNumberArray(capture.tokenIds),
      token_ids_len: capture.tokenIds?.length ?? null,
      logprobs: packNullableNumberArray(capture.logprobs),
      client_request: client.blob,
      client_request_base_call_id: client.baseCallId,
      client_request_prefix_len: client.prefixLen,
      client_request_suffix_len: client.suffixLen,
      upstream_request: upstream.blob,
      upstream_request_base_call_id: upstream.baseCallId,
      upstream_request_prefix_len: upstream.prefixLen,
      upstream_request_suffix_len: upstream.suffixLen,
      upstream_response: record.upstreamResponse === null ? null : compressBytes(record.upstreamResponse),
      requested_sampling: encodeSampling(record.requestedSampling),
      sent_sampling: encodeSampling(record.sentSampling),
      response_model: record.responseModel ?? null,
    });
    const id = Number(result.lastInsertRowid);
    priors.delete(record.sessionId);
    priors.set(record.sessionId, [...recent, toPriorCall(id, seq, record, promptBase)].slice(-LINEAGE_WINDOW));
    return id;
  });

  const evict = (): void => {
    while (priors.size > PRIOR_CACHE_SIZE) priors.delete(priors.keys().next().value as number);
  };

  const writeBatch = db.transaction((records: readonly InsertableCall[]): BatchOutcome[] =>
    records.map((record) => {
      try {
        const amended = resolvePromptIdsJson(record);
        const id = write(record);
        return amended ? { id, amended: { status: record.status, error: record.error } } : { id };
      } catch (error) {
        return { error: toInsertError(error, record) };
      }
    }),
  );

  return {
    one(record) {
      let id: number;
      try {
        resolvePromptIdsJson(record);
        id = write.immediate(record);
      } catch (error) {
        // A rolled-back id may be handed out again: forget what the cache learnt in this transaction.
        priors.delete(record.sessionId);
        throw toInsertError(error, record);
      }
      evict();
      return id;
    },
    batch(records) {
      let outcomes: BatchOutcome[];
      try {
        outcomes = writeBatch.immediate(records);
      } catch (error) {
        priors.clear();
        throw error;
      }
      evict();
      return outcomes;
    },
  };
}
