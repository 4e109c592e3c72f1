// Read-only queries behind `polar view`'s run pages: run summaries, one page of a run's sessions, groups, failures.
import type Database from 'better-sqlite3';
import { parseJsonObject } from './parse-json-object.js';

/** One run with its session counts, for the runs list. */
export interface RunSummary {
  id: number;
  name: string;
  createdAt: number;
  finishedAt: number | null;
  status: string;
  harness: string;
  upstream: string;
  samples: number;
  datasetPath: string;
  config: Record<string, unknown>;
  stats: Record<string, unknown> | null;
  /** Any run column this polar does not know (e.g. a manifest added later), parsed when it is JSON. */
  extra: Record<string, unknown>;
  /** The run manifest, wherever a newer polar stored it (a `manifest` column, or inside config or stats); null when none. */
  manifest: unknown;
  /** Sessions per terminal status; `running` counts the ones without one. */
  statusCounts: Record<string, number>;
  sessions: number;
  /** Sessions with reward 1 over sessions with a reward. */
  resolved: number;
  rewarded: number;
  /** Served model of the run's first call with one. */
  model: string | null;
}

/** A session as listed on a run page: its own columns only (no per-call aggregates), so 10,000 list fast. */
export interface SessionListRow {
  id: number;
  instanceId: string;
  taskId: number;
  sampleIndex: number;
  stage: string;
  status: string | null;
  /** `status_reason` when the store has that column, else `status_detail`. */
  reason: string | null;
  attempts: number;
  reward: number | null;
  createdAt: number;
  updatedAt: number | null;
  timings: Record<string, number>;
  simulated: boolean;
}

export const SESSION_SORT_KEYS = ['id', 'instance', 'sample', 'stage', 'status', 'reward', 'attempts', 'updated'] as const;
export type SessionSortKey = (typeof SESSION_SORT_KEYS)[number];

export interface SessionPageQuery {
  sort: SessionSortKey;
  descending: boolean;
  /** A terminal status, `running` (none yet), or undefined for all. */
  status?: string;
  /** Substring of the instance id. */
  text?: string;
  offset: number;
  limit: number;
}

/** A light row per session of a run (for groups and counts): no JSON columns. */
export interface GroupMember {
  id: number;
  taskId: number;
  instanceId: string;
  sampleIndex: number;
  status: string | null;
  reward: number | null;
}

export interface FailureGroup {
  status: string;
  reason: string | null;
  count: number;
  /** A few session ids, for links. */
  sessionIds: number[];
}

/** Changes whenever a session of the run changes: the run page polls it. */
export interface RunVersion {
  sessions: number;
  lastUpdate: number;
  done: number;
  runStatus: string;
}

/** Sessions of a run on one Docker host (--hosts), by status (a retried session counts on its last host). */
export interface HostSessionCounts {
  host: string;
  statusCounts: Record<string, number>;
}

export interface ViewRunQueries {
  listRuns(): RunSummary[];
  getRun(nameOrId: string): RunSummary | undefined;
  sessionPage(runId: number, query: SessionPageQuery): { total: number; rows: SessionListRow[] };
  groupMembers(runId: number): GroupMember[];
  failures(runId: number): FailureGroup[];
  /** Per Docker host, the run's sessions by status; empty for runs on the local engine (or databases before hosts). */
  hostSessions(runId: number): HostSessionCounts[];
  version(runId: number): RunVersion | undefined;
}

const SORT_COLUMNS: Record<SessionSortKey, string> = {
  id: 's.id',
  instance: 't.instance_id',
  sample: 's.sample_index',
  stage: 's.stage',
  status: 's.status',
  reward: 's.reward',
  attempts: 's.attempts',
  updated: 's.updated_at',
};

const KNOWN_RUN_COLUMNS = new Set(['id', 'name', 'created_at', 'finished_at', 'status', 'harness', 'dataset_path', 'upstream', 'samples', 'config', 'owner_pid', 'owner_host', 'stats']);

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set(db.prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${table}')`).all().map((row) => row.name));
}

function parseLoose(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

export function createViewRunQueries(db: Database.Database): ViewRunQueries {
  const sessionColumns = columnsOf(db, 'sessions');
  const reasonColumn = sessionColumns.has('status_reason') ? 'COALESCE(s.status_reason, s.status_detail)' : 's.status_detail';
  const allRuns = db.prepare<[], Record<string, unknown>>('SELECT * FROM runs ORDER BY id DESC');
  const runById = db.prepare<[number], Record<string, unknown>>('SELECT * FROM runs WHERE id = ?');
  const runByName = db.prepare<[string], Record<string, unknown>>('SELECT * FROM runs WHERE name = ?');
  const countsOf = db.prepare<[number], { status: string | null; n: number; resolved: number; rewarded: number }>(
    `SELECT status, COUNT(*) AS n, SUM(reward = 1) AS resolved, SUM(reward IS NOT NULL) AS rewarded FROM sessions WHERE run_id = ? GROUP BY status`,
  );
  const modelOf = db.prepare<[number], { upstream_model: string | null }>(
    `SELECT c.upstream_model FROM calls c WHERE c.session_id IN (SELECT id FROM sessions WHERE run_id = ?) AND c.upstream_model IS NOT NULL LIMIT 1`,
  );
  const membersOf = db.prepare<[number], { id: number; task_id: number; instance_id: string; sample_index: number; status: string | null; reward: number | null }>(
    `SELECT s.id, s.task_id, t.instance_id, s.sample_index, s.status, s.reward FROM sessions s JOIN tasks t ON t.id = s.task_id
     WHERE s.run_id = ? ORDER BY s.task_id, s.sample_index`,
  );
  const failuresOf = db.prepare<[number], { status: string; reason: string | null; n: number; ids: string }>(
    `SELECT s.status AS status, ${reasonColumn} AS reason, COUNT(*) AS n, GROUP_CONCAT(s.id) AS ids FROM sessions s
     WHERE s.run_id = ? AND s.status IS NOT NULL AND s.status != 'completed' GROUP BY 1, 2 ORDER BY n DESC`,
  );
  const hostsOf = sessionColumns.has('host')
    ? db.prepare<[number], { host: string; status: string | null; n: number }>(`SELECT host, status, COUNT(*) AS n FROM sessions WHERE run_id = ? AND host IS NOT NULL GROUP BY host, status ORDER BY host`)
    : undefined;
  const versionOf = db.prepare<[number], { sessions: number; last_update: number | null; done: number }>(
    `SELECT COUNT(*) AS sessions, MAX(updated_at) AS last_update, SUM(stage = 'done') AS done FROM sessions WHERE run_id = ?`,
  );

  function toSummary(row: Record<string, unknown>): RunSummary {
    const id = row.id as number;
    const statusCounts: Record<string, number> = {};
    let sessions = 0;
    let resolved = 0;
    let rewarded = 0;
    for (const count of countsOf.all(id)) {
      statusCounts[count.status ?? 'running'] = count.n;
      sessions += count.n;
      resolved += count.resolved ?? 0;
      rewarded += count.rewarded ?? 0;
    }
    const extra: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) if (!KNOWN_RUN_COLUMNS.has(key) && value !== null) extra[key] = parseLoose(value);
    const config = parseJsonObject(row.config as string | null, `run ${id} config`) ?? {};
    const stats = parseJsonObject(row.stats as string | null, `run ${id} stats`);
    return {
      id,
      name: row.name as string,
      createdAt: row.created_at as number,
      finishedAt: (row.finished_at as number | null) ?? null,
      status: row.status as string,
      harness: row.harness as string,
      upstream: row.upstream as string,
      samples: row.samples as number,
      datasetPath: row.dataset_path as string,
      config,
      stats,
      extra,
      manifest: extra.manifest ?? config.manifest ?? stats?.manifest ?? null,
      statusCounts,
      sessions,
      resolved,
      rewarded,
      model: modelOf.get(id)?.upstream_model ?? null,
    };
  }

  return {
    listRuns: () => allRuns.all().map(toSummary),
    getRun(nameOrId) {
      const row = runByName.get(nameOrId) ?? (/^\d+$/.test(nameOrId) ? runById.get(Number(nameOrId)) : undefined);
      return row === undefined ? undefined : toSummary(row);
    },
    sessionPage(runId, query) {
      const where = ['s.run_id = ?'];
      const params: (string | number)[] = [runId];
      if (query.status === 'running') where.push('s.status IS NULL');
      else if (query.status !== undefined) {
        where.push('s.status = ?');
        params.push(query.status);
      }
      if (query.text !== undefined && query.text !== '') {
        where.push("t.instance_id LIKE ? ESCAPE '\\'");
        params.push(`%${query.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
      const from = `FROM sessions s JOIN tasks t ON t.id = s.task_id WHERE ${where.join(' AND ')}`;
      const total = db.prepare<(string | number)[], { n: number }>(`SELECT COUNT(*) AS n ${from}`).get(...params)?.n ?? 0;
      const order = `${SORT_COLUMNS[query.sort]} ${query.descending ? 'DESC' : 'ASC'} NULLS LAST, s.id`;
      const rows = db
        .prepare<(string | number)[], Record<string, unknown>>(
          `SELECT s.id, t.instance_id, s.task_id, s.sample_index, s.stage, s.status, ${reasonColumn} AS reason, s.attempts, s.reward,
             s.created_at, s.updated_at, s.timings, s.simulated ${from} ORDER BY ${order} LIMIT ? OFFSET ?`,
        )
        .all(...params, query.limit, query.offset);
      return {
        total,
        rows: rows.map((row) => ({
          id: row.id as number,
          instanceId: row.instance_id as string,
          taskId: row.task_id as number,
          sampleIndex: row.sample_index as number,
          stage: row.stage as string,
          status: row.status as string | null,
          reason: row.reason as string | null,
          attempts: row.attempts as number,
          reward: row.reward as number | null,
          createdAt: row.created_at as number,
          updatedAt: row.updated_at as number | null,
          timings: parseJsonObject<Record<string, number>>(row.timings as string | null, `session ${String(row.id)} timings`) ?? {},
          simulated: row.simulated === 1,
        })),
      };
    },
    groupMembers: (runId) =>
      membersOf.all(runId).map((row) => ({
        id: row.id,
        taskId: row.task_id,
        instanceId: row.instance_id,
        sampleIndex: row.sample_index,
        status: row.status,
        reward: row.reward,
      })),
    hostSessions: (runId) => {
      const byHost = new Map<string, Record<string, number>>();
      for (const row of hostsOf?.all(runId) ?? []) byHost.set(row.host, { ...byHost.get(row.host), [row.status ?? 'running']: row.n });
      return [...byHost].map(([host, statusCounts]) => ({ host, statusCounts }));
    },
    failures: (runId) =>
      failuresOf.all(runId).map((row) => ({ status: row.status, reason: row.reason, count: row.n, sessionIds: row.ids.split(',').slice(0, 8).map(Number) })),
    version(runId) {
      const run = runById.get(runId);
      if (run === undefined) return undefined;
      const row = versionOf.get(runId);
      return { sessions: row?.sessions ?? 0, lastUpdate: row?.last_update ?? 0, done: row?.done ?? 0, runStatus: run.status as string };
    },
  };
}
