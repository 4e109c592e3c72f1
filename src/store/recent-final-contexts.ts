// The context recent sessions reached (their last call's prompt + sampled tokens), read back for engine
// admission's first estimate: a new run on a model polar has served before starts from what its sessions
// reached instead of the whole context window.
import type Database from 'better-sqlite3';

/** Sessions looked at, newest first: a bound on the start-up read however large the database is. */
const SCANNED_SESSIONS = 2000;

export interface RecentFinalContextsOptions {
  /** The model the last call was served by (calls.upstream_model). */
  model: string;
  /** At most this many sessions, newest first (default 32). */
  limit?: number;
}

/**
 * Among the newest sessions whose agent ran to its own end (completed, agent_error, timeout or eval_error: not
 * infrastructure failures or cancellations), those whose last call went to `model`: what their context reached,
 * in tokens, newest first. Calls without token counts count as 0 and are left out.
 */
export function createRecentFinalContexts(db: Database.Database): (options: RecentFinalContextsOptions) => number[] {
  const statement = db.prepare<[number, string, number], { context: number }>(`
    SELECT COALESCE(c.prompt_ids_len, c.prompt_tokens, 0) + COALESCE(c.token_ids_len, c.completion_tokens, 0) AS context
    FROM (SELECT id FROM sessions WHERE status IN ('completed', 'agent_error', 'timeout', 'eval_error') ORDER BY id DESC LIMIT ?) s
    JOIN calls c ON c.session_id = s.id AND c.seq = (SELECT MAX(seq) FROM calls WHERE session_id = s.id)
    WHERE c.upstream_model = ? AND context > 0
    ORDER BY s.id DESC
    LIMIT ?`);
  return ({ model, limit = 32 }) => statement.all(SCANNED_SESSIONS, model, limit).map((row) => row.context);
}
