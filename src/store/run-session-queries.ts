// Light, paged readers of a run's sessions: no agent log, patch or agent outcome, so memory stays flat at 8,000 sessions.
import type Database from 'better-sqlite3';
import { parseJsonObject } from './parse-json-object.js';
import type { RunSessionRow, SessionReason, SessionStage, SessionStatus } from './run-repository.js';

/** A run session without its large text columns (agent log, patch, agent outcome): what lists and plans need. */
export type RunSessionSummary = Omit<RunSessionRow, 'patch' | 'agentLog' | 'agentOutcome'> & {
  /** UTF-8 length of the patch; null when none was stored. */
  patchBytes: number | null;
  /** Lines of the patch without trailing whitespace (0 for an empty patch); null when none was stored. */
  patchLines: number | null;
  /** The agent stage's outcome is stored (a resume only evaluates). */
  hasAgentOutcome: boolean;
  /** Its status (what a resume decides by); the outcome itself, patch included, is read with `session(id)`. */
  agentOutcomeStatus: SessionStatus | null;
};

/** One task's sessions, aggregated in SQL (`polar runs show` groups). */
export interface RunGroupSummary {
  instanceId: string;
  samples: number;
  /** Sessions that count in the group: not infra_error, not cancelled. */
  inGroup: number;
  completed: number;
  /** In-group sessions with reward 1. */
  resolved: number;
  /** Mean reward of in-group sessions with a reward; null without any. */
  meanReward: number | null;
}

export interface RunSessionCounts {
  total: number;
  /** Sessions in stage `done`. */
  done: number;
  byStatus: Partial<Record<SessionStatus, number>>;
}

export interface IterateSessionsOptions {
  /** Rows read per query (default 256): the most session summaries held at once. */
  pageSize?: number;
}

export interface RunSessionQueries {
  /**
   * The run's sessions in task then sample order, read a page at a time (keyset paging, no statement left
   * open between pages, so writes between yields are fine and no read transaction outlives a page).
   */
  iterateSessionSummaries(runId: number, options?: IterateSessionsOptions): Generator<RunSessionSummary, void, undefined>;
  /** The session's patch (null when none, undefined for an unknown session). */
  sessionPatch(sessionId: number): string | null | undefined;
  /** Per task (instance id), in task order. */
  groupSummaries(runId: number): RunGroupSummary[];
  counts(runId: number): RunSessionCounts;
  /** Sessions per pipeline stage (stages without sessions are absent). */
  stageCounts(runId: number): Partial<Record<SessionStage, number>>;
  /**
   * Tasks whose every session ended with a status other than cancelled (a complete GRPO group), in task
   * order; only the task of `instanceId` when given (one session's end: O(samples), not O(run)).
   */
  endedTasks(runId: number, instanceId?: string): { taskId: number; instanceId: string }[];
  /**
   * Ids of the sessions that have not ended as a complete group counts them (not done, or ended cancelled), in
   * task then sample order: a serve batch's tail once its target is reached.
   */
  openSessionIds(runId: number): number[];
}

/** Per-session totals over the current attempt's calls (shared with the full session reader). */
export const SESSION_CALL_TOTALS = `
    (SELECT COUNT(*) FROM calls c WHERE c.session_id = s.id AND c.seq >= s.first_call_seq) AS call_count,
    (SELECT COUNT(*) FROM calls c WHERE c.session_id = s.id AND c.seq >= s.first_call_seq AND c.status = 'ok') AS ok_call_count,
    (SELECT COUNT(*) FROM calls c WHERE c.session_id = s.id AND c.seq >= s.first_call_seq AND (c.status IN ('upstream_unavailable', 'upstream_timeout', 'no_token_ids', 'token_mismatch', 'model_mismatch', 'engine_aborted') OR (c.status = 'upstream_error' AND c.http_status >= 500))) AS upstream_failures,
    (SELECT COALESCE(SUM(COALESCE(c.prompt_tokens, c.prompt_ids_len)), 0) FROM calls c WHERE c.session_id = s.id AND c.seq >= s.first_call_seq) AS prompt_tokens,
    (SELECT COALESCE(SUM(COALESCE(c.completion_tokens, c.token_ids_len)), 0) FROM calls c WHERE c.session_id = s.id AND c.seq >= s.first_call_seq) AS sampled_tokens`;

const TRAILING_SPACE = 'char(32, 9, 10, 13)';

const SUMMARY_SELECT = `
  SELECT s.id, s.key, s.run_id, s.task_id, t.instance_id, s.sample_index, s.simulated, s.stage, s.status,
    s.status_reason, s.status_detail, s.agent_outcome IS NOT NULL AS has_agent_outcome, json_extract(s.agent_outcome, '$.status') AS agent_outcome_status, s.attempts, s.first_call_seq, s.host,
    CASE WHEN s.patch IS NULL THEN NULL ELSE length(CAST(s.patch AS BLOB)) END AS patch_bytes,
    CASE WHEN s.patch IS NULL THEN NULL WHEN s.patch = '' THEN 0
      ELSE length(rtrim(s.patch, ${TRAILING_SPACE})) - length(replace(rtrim(s.patch, ${TRAILING_SPACE}), char(10), '')) + 1 END AS patch_lines,
    s.exit_code, s.timings, s.reward, s.evaluation, s.updated_at,
    ${SESSION_CALL_TOTALS}
  FROM sessions s JOIN tasks t ON t.id = s.task_id`;

interface SummaryDbRow {
  id: number;
  key: string;
  run_id: number;
  task_id: number;
  instance_id: string;
  sample_index: number;
  simulated: number;
  stage: string;
  status: string | null;
  status_reason: string | null;
  status_detail: string | null;
  has_agent_outcome: number;
  agent_outcome_status: string | null;
  attempts: number;
  first_call_seq: number;
  host: string | null;
  patch_bytes: number | null;
  patch_lines: number | null;
  exit_code: number | null;
  timings: string | null;
  reward: number | null;
  evaluation: string | null;
  updated_at: number | null;
  call_count: number;
  ok_call_count: number;
  upstream_failures: number;
  prompt_tokens: number;
  sampled_tokens: number;
}

function toSummary(row: SummaryDbRow): RunSessionSummary {
  return {
    id: row.id,
    key: row.key,
    runId: row.run_id,
    taskId: row.task_id,
    instanceId: row.instance_id,
    sampleIndex: row.sample_index,
    simulated: row.simulated === 1,
    stage: row.stage as SessionStage,
    status: row.status as SessionStatus | null,
    statusReason: row.status_reason as SessionReason | null,
    statusDetail: row.status_detail,
    hasAgentOutcome: row.has_agent_outcome === 1,
    agentOutcomeStatus: row.agent_outcome_status as SessionStatus | null,
    attempts: row.attempts,
    firstCallSeq: row.first_call_seq,
    host: row.host,
    patchBytes: row.patch_bytes,
    patchLines: row.patch_lines,
    exitCode: row.exit_code,
    timings: parseJsonObject<Record<string, number>>(row.timings, `session ${row.id} timings`) ?? {},
    reward: row.reward,
    evaluation: parseJsonObject(row.evaluation, `session ${row.id} evaluation`),
    updatedAt: row.updated_at,
    callCount: row.call_count,
    okCallCount: row.ok_call_count,
    upstreamFailures: row.upstream_failures,
    promptTokens: row.prompt_tokens,
    sampledTokens: row.sampled_tokens,
  };
}

const DEFAULT_PAGE_SIZE = 256;

export function createRunSessionQueries(db: Database.Database): RunSessionQueries {
  // Keyset paging on the sessions_by_run index (run_id, task_id, sample_index); id breaks ties.
  const page = db.prepare<[number, number, number, number, number], SummaryDbRow>(
    `${SUMMARY_SELECT} WHERE s.run_id = ? AND (s.task_id, s.sample_index, s.id) > (?, ?, ?) ORDER BY s.task_id, s.sample_index, s.id LIMIT ?`,
  );
  const patchOf = db.prepare<[number], { patch: string | null }>('SELECT patch FROM sessions WHERE id = ?');
  const groups = db.prepare<[number], { instance_id: string; samples: number; in_group: number; completed: number; resolved: number; mean_reward: number | null }>(`
    SELECT t.instance_id, COUNT(*) AS samples,
      SUM(s.status IS NULL OR s.status NOT IN ('infra_error', 'cancelled')) AS in_group,
      SUM(s.status IS 'completed') AS completed,
      SUM((s.status IS NULL OR s.status NOT IN ('infra_error', 'cancelled')) AND s.reward = 1) AS resolved,
      AVG(CASE WHEN s.status IS NULL OR s.status NOT IN ('infra_error', 'cancelled') THEN s.reward END) AS mean_reward
    FROM sessions s JOIN tasks t ON t.id = s.task_id WHERE s.run_id = ?
    GROUP BY t.instance_id ORDER BY MIN(t.id)`);
  const ended = db.prepare<[number, string | null, string | null], { task_id: number; instance_id: string }>(`
    SELECT t.id AS task_id, t.instance_id FROM tasks t JOIN sessions s ON s.task_id = t.id
    WHERE t.run_id = ? AND (? IS NULL OR t.instance_id = ?)
    GROUP BY t.id HAVING SUM(s.stage = 'done' AND s.status IS NOT NULL AND s.status != 'cancelled') = COUNT(*)
    ORDER BY t.id`);
  const open = db.prepare<[number], { id: number }>(`
    SELECT id FROM sessions WHERE run_id = ? AND NOT (stage = 'done' AND status IS NOT NULL AND status != 'cancelled')
    ORDER BY task_id, sample_index, id`);
  const byStage = db.prepare<[number], { stage: string; n: number }>('SELECT stage, COUNT(*) AS n FROM sessions WHERE run_id = ? GROUP BY stage');
  const statusCounts = db.prepare<[number], { status: string | null; done: number; n: number }>(
    `SELECT status, SUM(stage = 'done') AS done, COUNT(*) AS n FROM sessions WHERE run_id = ? GROUP BY status`,
  );

  return {
    *iterateSessionSummaries(runId, options = {}) {
      const size = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
      let after: [number, number, number] = [-1, -1, -1];
      for (;;) {
        const rows = page.all(runId, ...after, size);
        for (const row of rows) yield toSummary(row);
        const last = rows.at(-1);
        if (last === undefined || rows.length < size) return;
        after = [last.task_id, last.sample_index, last.id];
      }
    },
    sessionPatch(sessionId) {
      return patchOf.get(sessionId)?.patch;
    },
    groupSummaries(runId) {
      return groups.all(runId).map((row) => ({
        instanceId: row.instance_id,
        samples: row.samples,
        inGroup: row.in_group,
        completed: row.completed,
        resolved: row.resolved,
        meanReward: row.mean_reward,
      }));
    },
    stageCounts(runId) {
      return Object.fromEntries(byStage.all(runId).map((row) => [row.stage, row.n])) as Partial<Record<SessionStage, number>>;
    },
    endedTasks(runId, instanceId) {
      return ended.all(runId, instanceId ?? null, instanceId ?? null).map((row) => ({ taskId: row.task_id, instanceId: row.instance_id }));
    },
    openSessionIds(runId) {
      return open.all(runId).map((row) => row.id);
    },
    counts(runId) {
      const result: RunSessionCounts = { total: 0, done: 0, byStatus: {} };
      for (const row of statusCounts.all(runId)) {
        result.total += row.n;
        result.done += row.done;
        if (row.status !== null) result.byStatus[row.status as SessionStatus] = row.n;
      }
      return result;
    },
  };
}
