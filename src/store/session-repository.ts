// Sessions: create with a fresh API key, look up by key or id, list with per-session call totals.
import type Database from 'better-sqlite3';
import { CALL_STATUSES, type CallStatus } from '../capture/call-record.js';
import { DataError } from '../errors.js';
import { parseJsonObject } from './parse-json-object.js';
import { createSessionKey } from './session-key.js';

/** Free-form JSON object attached to a session (harness, task, sampling settings, ...). */
export type SessionMeta = Record<string, unknown>;

export interface SessionRow {
  id: number;
  /** The API key the harness is configured with; the gateway routes calls by it. */
  key: string;
  /** Epoch milliseconds. */
  createdAt: number;
  label: string | null;
  /** Set when the upstream is polar's simulator. */
  simulated: boolean;
  meta: SessionMeta | null;
}

export interface NewSession {
  label?: string | null;
  simulated?: boolean;
  meta?: SessionMeta | null;
}

export interface SessionSummary extends SessionRow {
  callCount: number;
  /** Sum over calls of usage prompt tokens, or the captured prompt length when usage is missing. */
  promptTokens: number;
  /** Sum over calls of usage completion tokens, or the captured sampled length when usage is missing. */
  completionTokens: number;
  /** Calls per status; every status is present (0 when none). */
  statusCounts: Record<CallStatus, number>;
}

export interface ListSessionsOptions {
  /** Newest first; all when omitted. */
  limit?: number;
  offset?: number;
}

export interface SessionRepository {
  create(input?: NewSession): SessionRow;
  findByKey(key: string): SessionRow | undefined;
  /** By numeric id, or by a string that is either a key or a decimal id. */
  get(keyOrId: string | number): SessionRow | undefined;
  list(options?: ListSessionsOptions): SessionSummary[];
  /** Sets `simulated` (a gateway on the simulator served it). Returns false for an unknown id. */
  markSimulated(id: number): boolean;
}

interface SessionDbRow {
  id: number;
  key: string;
  created_at: number;
  label: string | null;
  simulated: number;
  meta: string | null;
}

interface SummaryDbRow extends SessionDbRow {
  call_count: number;
  prompt_tokens: number;
  completion_tokens: number;
}

function toSessionRow(row: SessionDbRow): SessionRow {
  return {
    id: row.id,
    key: row.key,
    createdAt: row.created_at,
    label: row.label,
    simulated: row.simulated === 1,
    meta: parseJsonObject(row.meta, `session ${row.id} meta`),
  };
}

function isCallStatus(value: string): value is CallStatus {
  return (CALL_STATUSES as readonly string[]).includes(value);
}

function emptyStatusCounts(): Record<CallStatus, number> {
  return Object.fromEntries(CALL_STATUSES.map((status) => [status, 0])) as Record<CallStatus, number>;
}

export function createSessionRepository(db: Database.Database): SessionRepository {
  const insert = db.prepare<[string, number, string | null, number, string | null], SessionDbRow>(
    'INSERT INTO sessions (key, created_at, label, simulated, meta) VALUES (?, ?, ?, ?, ?) RETURNING *',
  );
  const byKey = db.prepare<[string], SessionDbRow>('SELECT * FROM sessions WHERE key = ?');
  const byId = db.prepare<[number], SessionDbRow>('SELECT * FROM sessions WHERE id = ?');
  const simulate = db.prepare<[number]>('UPDATE sessions SET simulated = 1 WHERE id = ?');
  const page = `SELECT * FROM sessions ORDER BY id DESC LIMIT ? OFFSET ?`;
  const summaries = db.prepare<[number, number], SummaryDbRow>(`
    WITH page AS (${page})
    SELECT page.*, COUNT(c.id) AS call_count,
      COALESCE(SUM(COALESCE(c.prompt_tokens, c.prompt_ids_len)), 0) AS prompt_tokens,
      COALESCE(SUM(COALESCE(c.completion_tokens, c.token_ids_len)), 0) AS completion_tokens
    FROM page LEFT JOIN calls c ON c.session_id = page.id
    GROUP BY page.id ORDER BY page.id DESC`);
  const statusCounts = db.prepare<[number, number], { session_id: number; status: string; n: number }>(`
    SELECT session_id, status, COUNT(*) AS n FROM calls
    WHERE session_id IN (SELECT id FROM (${page}))
    GROUP BY session_id, status`);

  function findByKey(key: string): SessionRow | undefined {
    const row = byKey.get(key);
    return row === undefined ? undefined : toSessionRow(row);
  }

  function findById(id: number): SessionRow | undefined {
    const row = byId.get(id);
    return row === undefined ? undefined : toSessionRow(row);
  }

  return {
    create(input = {}) {
      const meta = input.meta === undefined || input.meta === null ? null : JSON.stringify(input.meta);
      const row = insert.get(createSessionKey(), Date.now(), input.label ?? null, input.simulated === true ? 1 : 0, meta);
      if (row === undefined) throw new DataError('Inserting a session returned no row.');
      return toSessionRow(row);
    },
    findByKey,
    markSimulated(id) {
      return simulate.run(id).changes === 1;
    },
    get(keyOrId) {
      if (typeof keyOrId === 'number') return findById(keyOrId);
      return /^\d+$/.test(keyOrId) ? findById(Number(keyOrId)) : findByKey(keyOrId);
    },
    list: db.transaction((options: ListSessionsOptions = {}): SessionSummary[] => {
      const limit = options.limit ?? -1;
      const offset = options.offset ?? 0;
      const counts = new Map<number, Record<CallStatus, number>>();
      for (const { session_id, status, n } of statusCounts.all(limit, offset)) {
        if (!isCallStatus(status)) throw new DataError(`A call of session ${session_id} has unknown status '${status}'.`, 'The database may be corrupt.');
        const perSession = counts.get(session_id) ?? emptyStatusCounts();
        perSession[status] = n;
        counts.set(session_id, perSession);
      }
      return summaries.all(limit, offset).map((row) => ({
        ...toSessionRow(row),
        callCount: row.call_count,
        promptTokens: row.prompt_tokens,
        completionTokens: row.completion_tokens,
        statusCounts: counts.get(row.id) ?? emptyStatusCounts(),
      }));
    }),
  };
}
