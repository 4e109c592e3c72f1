// Totals over the stored calls: counts, tokens, and the bytes their blobs take (for bytes-per-token benchmarks).
import type Database from 'better-sqlite3';

export interface StoreStats {
  sessions: number;
  calls: number;
  /** Sum of captured sampled token ids. */
  sampledTokens: number;
  /** Sum of captured prompt token ids (full lengths, not the stored tails). */
  promptTokens: number;
  /** Bytes of the packed prompt tails, sampled ids and logprobs blobs. */
  tokenBlobBytes: number;
  /** Bytes of the compressed client request, upstream request and upstream response blobs. */
  rawBlobBytes: number;
}

export interface StoreStatsOptions {
  /** Restrict to one session. */
  sessionId?: number;
}

type StatsRow = Omit<StoreStats, 'sessions'>;

const TOTALS = `SELECT COUNT(*) AS calls,
  COALESCE(SUM(token_ids_len), 0) AS sampledTokens,
  COALESCE(SUM(prompt_ids_len), 0) AS promptTokens,
  COALESCE(SUM(IFNULL(LENGTH(prompt_ids_tail), 0) + IFNULL(LENGTH(token_ids), 0) + IFNULL(LENGTH(logprobs), 0)), 0) AS tokenBlobBytes,
  COALESCE(SUM(LENGTH(client_request) + IFNULL(LENGTH(upstream_request), 0) + IFNULL(LENGTH(upstream_response), 0)), 0) AS rawBlobBytes
  FROM calls`;

export function createStatsReader(db: Database.Database): (options?: StoreStatsOptions) => StoreStats {
  const all = db.prepare<[], StatsRow>(TOTALS);
  const one = db.prepare<[number], StatsRow>(`${TOTALS} WHERE session_id = ?`);
  const sessions = db.prepare<[], number>('SELECT COUNT(*) FROM sessions').pluck();
  const oneSession = db.prepare<[number], number>('SELECT COUNT(*) FROM sessions WHERE id = ?').pluck();
  return db.transaction((options: StoreStatsOptions = {}): StoreStats => {
    const { sessionId } = options;
    const totals = sessionId === undefined ? all.get() : one.get(sessionId);
    const sessionCount = sessionId === undefined ? sessions.get() : oneSession.get(sessionId);
    return { sessions: sessionCount ?? 0, ...(totals as StatsRow) };
  });
}
