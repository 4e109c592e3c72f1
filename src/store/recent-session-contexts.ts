// The contexts recent sessions held and reached, read back for engine admission's first estimate: a new run on a
// model polar has served before starts from what its sessions held (their calls' contexts while decoding,
// weighted by the tokens each sampled) instead of half the context window.
import type Database from 'better-sqlite3';

/** Sessions looked at, newest first: a bound on the start-up read however large the database is. */
const SCANNED_SESSIONS = 2000;

export interface RecentSessionContextsOptions {
  /** The model the last call was served by (calls.upstream_model). */
  model: string;
  /** At most this many sessions, newest first (default 32). */
  limit?: number;
}

/** One session's contexts in tokens (engine admission's SessionContext). */
export interface StoredSessionContext {
  /** Each call's prompt + half its sampled tokens, weighted by its sampled tokens (its last call's context when nothing was sampled). */
  held: number;
  /** Its last call's prompt + sampled tokens (of the calls with tokens: a last call the engine never ran, such as a context overflow, is passed over). */
  final: number;
}

/**
 * Among the newest sessions whose agent ran to its own end (completed, agent_error, timeout or eval_error: not
 * infrastructure failures or cancellations), those whose last call with tokens went to `model`: what their context
 * held and reached, newest first. Calls without token counts (refused before the engine ran them) are passed over.
 */
export function createRecentSessionContexts(db: Database.Database): (options: RecentSessionContextsOptions) => StoredSessionContext[] {
  const statement = db.prepare<[number, string, number], { final: number; weighted: number; sampled: number }>(`
    SELECT COALESCE(c.prompt_ids_len, c.prompt_tokens, 0) + COALESCE(c.token_ids_len, c.completion_tokens, 0) AS final,
      (SELECT SUM((COALESCE(a.prompt_ids_len, a.prompt_tokens, 0) + COALESCE(a.token_ids_len, a.completion_tokens, 0) / 2.0) * COALESCE(a.token_ids_len, a.completion_tokens, 0))
         FROM calls a WHERE a.session_id = s.id) AS weighted,
      (SELECT SUM(COALESCE(a.token_ids_len, a.completion_tokens, 0)) FROM calls a WHERE a.session_id = s.id) AS sampled
    FROM (SELECT id FROM sessions WHERE status IN ('completed', 'agent_error', 'timeout', 'eval_error') ORDER BY id DESC LIMIT ?) s
    JOIN calls c ON c.session_id = s.id AND c.seq = (
      SELECT MAX(seq) FROM calls WHERE session_id = s.id AND COALESCE(prompt_ids_len, prompt_tokens, 0) + COALESCE(token_ids_len, completion_tokens, 0) > 0)
    WHERE c.upstream_model = ? AND final > 0
    ORDER BY s.id DESC
    LIMIT ?`);
  return ({ model, limit = 32 }) => statement.all(SCANNED_SESSIONS, model, limit).map((row) => ({ held: row.sampled > 0 ? row.weighted / row.sampled : row.final, final: row.final }));
}
