// A session's calls with their token arrays, for the viewer's token view: each call decoded once, prompts
// rebuilt by walking the delta chain forward in one shared, growing buffer (no per-call copy of the prefix).
import type Database from 'better-sqlite3';
import { DataError } from '../errors.js';
import type { CanonicalResponse } from '../providers/canonical.js';
import { unpackNullableNumberArray, unpackNumberArray } from './pack-number-array.js';
import type { StoredCall } from './stored-call.js';

/** What the trajectory builders read of a call; prompt ids are a read-only view into a shared buffer. */
export interface SessionTokenCall {
  id: number;
  seq: number;
  status: string;
  promptTokenIds: Float64Array | null;
  tokenIds: number[] | null;
  logprobs: number[] | null;
  finishReason: string | null;
  response: CanonicalResponse | null;
}

interface TokenRow {
  id: number;
  seq: number;
  status: string;
  finish_reason: string | null;
  response: string | null;
  prompt_ids_tail: Buffer | null;
  prompt_base_call_id: number | null;
  prompt_shared_len: number;
  token_ids: Buffer | null;
  logprobs: Buffer | null;
}

/** A growing token buffer: `used` positions are written; views below `used` never change. */
interface Tape {
  data: Float64Array;
  used: number;
}

/** Where a decoded call's base (prompt ++ sampled) lives. */
interface BaseRef {
  tape: Tape;
  /** The tape's array when the base was written (the tape may have grown into a new array since). */
  data: Float64Array;
  length: number;
}

function ensureCapacity(tape: Tape, needed: number): void {
  if (needed <= tape.data.length) return;
  const grown = new Float64Array(Math.max(needed, tape.data.length * 2, 1024));
  grown.set(tape.data.subarray(0, tape.used));
  tape.data = grown;
}

function append(tape: Tape, values: readonly number[]): void {
  ensureCapacity(tape, tape.used + values.length);
  tape.data.set(values, tape.used);
  tape.used += values.length;
}

export interface SessionTokenReader {
  /** Calls of the session with `seq >= fromSeq`, in seq order (the rows `polar export` builds from). */
  read(sessionId: number, fromSeq: number): SessionTokenCall[];
}

/**
 * `loadBase` gives the full call for a delta base outside the scan (a call of another session or one
 * the scan has not reached): rare, so it may be slow.
 */
export function createSessionTokenReader(db: Database.Database, loadBase: (id: number) => StoredCall | undefined): SessionTokenReader {
  const rowsOf = db.prepare<[number], TokenRow>(
    `SELECT id, seq, status, finish_reason, response, prompt_ids_tail, prompt_base_call_id, prompt_shared_len, token_ids, logprobs
     FROM calls WHERE session_id = ? ORDER BY seq`,
  );

  function outsideBase(id: number): BaseRef {
    const call = loadBase(id);
    if (call === undefined) throw new DataError(`Call ${id}, needed to decode prompt ids, does not exist.`, 'The database may be corrupt.');
    const prompt = call.capture.promptTokenIds;
    if (prompt === null) throw new DataError(`A call stores its prompt ids against call ${id}, which has none.`, 'The database may be corrupt.');
    const tape: Tape = { data: new Float64Array(0), used: 0 };
    append(tape, prompt);
    append(tape, call.capture.tokenIds ?? []);
    return { tape, data: tape.data, length: tape.used };
  }

  return {
    read: db.transaction((sessionId: number, fromSeq: number): SessionTokenCall[] => {
      const bases = new Map<number, BaseRef>();
      const out: SessionTokenCall[] = [];
      for (const row of rowsOf.all(sessionId)) {
        const sampled = unpackNullableNumberArray(row.token_ids);
        let prompt: Float64Array | null = null;
        if (row.prompt_ids_tail !== null) {
          const tail = unpackNumberArray(row.prompt_ids_tail);
          let tape: Tape;
          if (row.prompt_base_call_id === null) {
            tape = { data: new Float64Array(0), used: 0 };
          } else {
            const base = bases.get(row.prompt_base_call_id) ?? outsideBase(row.prompt_base_call_id);
            const shared = row.prompt_shared_len;
            if (shared < 0 || shared > base.length) {
              throw new DataError(`Token delta of call ${row.id} shares ${shared} tokens with a base of ${base.length}.`, 'The database may be corrupt.');
            }
            if (base.tape.used === shared) {
              tape = base.tape; // the usual case: this prompt extends the previous call's context in place
            } else {
              tape = { data: new Float64Array(0), used: 0 };
              ensureCapacity(tape, shared + tail.length);
              tape.data.set(base.data.subarray(0, shared));
              tape.used = shared;
            }
          }
          append(tape, tail);
          prompt = tape.data.subarray(0, tape.used);
          append(tape, sampled ?? []);
          bases.set(row.id, { tape, data: tape.data, length: tape.used });
        }
        if (row.seq < fromSeq) continue;
        out.push({
          id: row.id,
          seq: row.seq,
          status: row.status,
          promptTokenIds: prompt,
          tokenIds: sampled,
          logprobs: unpackNullableNumberArray(row.logprobs),
          finishReason: row.finish_reason,
          response: row.response === null ? null : (JSON.parse(row.response) as CanonicalResponse),
        });
      }
      return out;
    }),
  };
}
