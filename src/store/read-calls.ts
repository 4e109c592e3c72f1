// Reads calls back, rebuilding delta-stored prompt ids and request bytes by walking their chains.
import type Database from 'better-sqlite3';
import { DataError } from '../errors.js';
import { CALL_SCALAR_COLUMNS, diffedRawColumns, type CallScalarRow, type DiffedRawField, type DiffedRawRow, type PromptChainRow } from './call-row.js';
import { createPromptLink, createRawLink, type PromptValue } from './call-chain-links.js';
import { decompressBytes } from './compress-bytes.js';
import { decodeCallRow } from './decode-call-row.js';
import type { PriorCall } from './encode-call-fields.js';
import { resolveChain } from './resolve-chain.js';
import type { CallRawBytes, ReadCallsOptions, StoredCall } from './stored-call.js';

export interface CallReader {
  get(id: number, options?: ReadCallsOptions): StoredCall | undefined;
  listBySession(sessionId: number, options?: ReadCallsOptions): StoredCall[];
  /**
   * The raw bytes of these calls alone (e.g. the last call of each export row), decoded in id order so a
   * later call's chain stops at an earlier requested call instead of walking back to its full copy.
   */
  rawOf(ids: Iterable<number>): Map<number, CallRawBytes>;
  /** The decoded fields a new call of the session is diffed against. */
  loadPrior(id: number): PriorCall;
}

/** Values of the previous call while scanning a session in seq order, so each link decodes once. */
interface Known {
  prompt: Map<number, PromptValue>;
  client: Map<number, Buffer | null>;
  upstream: Map<number, Buffer | null>;
}

function emptyKnown(): Known {
  return { prompt: new Map(), client: new Map(), upstream: new Map() };
}

export function createCallReader(db: Database.Database): CallReader {
  const scalars = CALL_SCALAR_COLUMNS.join(', ');
  const byId = db.prepare<[number], CallScalarRow>(`SELECT ${scalars} FROM calls WHERE id = ?`);
  const bySession = db.prepare<[number], CallScalarRow>(`SELECT ${scalars} FROM calls WHERE session_id = ? ORDER BY seq`);
  const promptRow = db.prepare<[number], PromptChainRow>(
    'SELECT id, prompt_ids_tail, prompt_base_call_id, prompt_shared_len, token_ids FROM calls WHERE id = ?',
  );
  const rawRows: Record<DiffedRawField, Database.Statement<[number], DiffedRawRow>> = {
    client_request: db.prepare(`SELECT ${diffedRawColumns('client_request')} FROM calls WHERE id = ?`),
    upstream_request: db.prepare(`SELECT ${diffedRawColumns('upstream_request')} FROM calls WHERE id = ?`),
  };
  const upstreamResponse = db.prepare<[number], { upstream_response: Buffer | null }>('SELECT upstream_response FROM calls WHERE id = ?');

  function mustExist<T>(row: T | undefined, id: number, referrer: string): T {
    if (row === undefined) throw new DataError(`Call ${id}, needed to decode ${referrer}, does not exist.`, 'The database may be corrupt.');
    return row;
  }

  function loadPromptLink(id: number) {
    return createPromptLink(mustExist(promptRow.get(id), id, 'prompt ids'));
  }

  function resolveRaw(field: DiffedRawField, id: number, known: Map<number, Buffer | null>): Buffer | null {
    return resolveChain(id, (linkId) => createRawLink(mustExist(rawRows[field].get(linkId), linkId, field)), known);
  }

  function readRaw(id: number, known: Known): CallRawBytes {
    const clientRequest = resolveRaw('client_request', id, known.client);
    if (clientRequest === null) throw new DataError(`Call ${id} has no client request bytes.`, 'The database may be corrupt.');
    const response = mustExist(upstreamResponse.get(id), id, 'upstream_response').upstream_response;
    return {
      clientRequest,
      upstreamRequest: resolveRaw('upstream_request', id, known.upstream),
      upstreamResponse: response === null ? null : decompressBytes(response),
    };
  }

  /** Decodes one row; `known` is replaced by this row's values for the next row of the scan. */
  function decode(row: CallScalarRow, withRaw: boolean, known: Known): StoredCall {
    const prompt = resolveChain(row.id, (id) => (id === row.id ? createPromptLink(row) : loadPromptLink(id)), known.prompt);
    const raw = withRaw ? readRaw(row.id, known) : null;
    known.prompt = new Map([[row.id, prompt]]);
    if (raw !== null) {
      known.client = new Map([[row.id, raw.clientRequest]]);
      known.upstream = new Map([[row.id, raw.upstreamRequest]]);
    }
    return decodeCallRow(row, prompt.prompt, raw);
  }

  return {
    get: db.transaction((id: number, options: ReadCallsOptions = {}): StoredCall | undefined => {
      const row = byId.get(id);
      return row === undefined ? undefined : decode(row, options.withRaw === true, emptyKnown());
    }),
    listBySession: db.transaction((sessionId: number, options: ReadCallsOptions = {}): StoredCall[] => {
      const known = emptyKnown();
      return bySession.all(sessionId).map((row) => decode(row, options.withRaw === true, known));
    }),
    rawOf: db.transaction((ids: Iterable<number>): Map<number, CallRawBytes> => {
      const known = emptyKnown();
      const raws = new Map<number, CallRawBytes>();
      for (const id of [...new Set(ids)].sort((a, b) => a - b)) {
        const raw = readRaw(id, known);
        known.client.set(id, raw.clientRequest);
        known.upstream.set(id, raw.upstreamRequest);
        raws.set(id, raw);
      }
      return raws;
    }),
    loadPrior(id) {
      const clientRequest = resolveRaw('client_request', id, new Map());
      if (clientRequest === null) throw new DataError(`Call ${id} has no client request bytes.`, 'The database may be corrupt.');
      return {
        id,
        promptBase: resolveChain(id, loadPromptLink).base,
        clientRequest,
        upstreamRequest: resolveRaw('upstream_request', id, new Map()),
      };
    },
  };
}
