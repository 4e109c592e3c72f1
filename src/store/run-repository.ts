// Runs, their tasks and their sessions: the durable state of a rollout (every change committed at once).
import type Database from 'better-sqlite3';
import { DataError } from '../errors.js';
import { parseJsonObject } from './parse-json-object.js';
import { createRunSessionQueries, SESSION_CALL_TOTALS, type RunSessionQueries } from './run-session-queries.js';
import { createSessionKey } from './session-key.js';

/** Where a session is in the pipeline (DESIGN §6). */
export type SessionStage = 'queued' | 'init' | 'ready' | 'running' | 'post' | 'done';

/** How a rollout session ended. */
export type SessionStatus = 'completed' | 'agent_error' | 'timeout' | 'infra_error' | 'eval_error' | 'cancelled';

/**
 * Why a session ended as it did: the typed reason next to its status (DESIGN §6). infra_error reasons
 * are never the agent's doing; agent_error / timeout reasons are.
 */
export type SessionReason =
  /** completed: the harness exited 0. */
  | 'agent_finished'
  /** agent_error: the harness exited non-zero on its own (it crashed or gave up). */
  | 'agent_crashed'
  /** agent_error: the conversation outgrew the model's context window. */
  | 'context_overflow'
  /** agent_error: the upstream rejected a request the harness built (HTTP 4xx). */
  | 'upstream_rejected'
  /** timeout: the deadline passed while the model kept answering (the agent's own time budget). */
  | 'agent_deadline'
  /** infra_error: the upstream answered HTTP 5xx. */
  | 'upstream_5xx'
  /** infra_error: the upstream could not be reached or dropped the connection. */
  | 'upstream_unavailable'
  /** infra_error: the upstream did not answer within the gateway's timeout. */
  | 'upstream_timeout'
  /** infra_error: the upstream answered without token ids (or with inconsistent ones). */
  | 'no_token_ids'
  /** infra_error: the upstream answered with another model than the run's. */
  | 'model_mismatch'
  /** infra_error: the deadline passed while one model call held most of the window (a stalled server). */
  | 'model_stalled'
  /** infra_error: the inference engine aborted a model call (a trainer's pause in abort mode): a cut-off sample. */
  | 'engine_aborted'
  /** infra_error: the harness was killed by the container's memory limit. */
  | 'container_oom'
  /** infra_error: the session container could not be created or started. */
  | 'container_start'
  /** infra_error: the workspace could not be prepared inside the container. */
  | 'workspace_prepare'
  /** infra_error: the harness process could not be run (exec failed). */
  | 'harness_exec'
  /** infra_error: the patch could not be read from the workspace. */
  | 'patch_extract'
  /** infra_error: the task's image could not be pulled (after retries). */
  | 'image_unavailable'
  /** infra_error: the Docker host the session ran on (--hosts) was lost: SSH cut, host down, engine gone. */
  | 'host_lost'
  /** eval_error: the evaluation could not grade the patch. */
  | 'eval_failed'
  /** cancelled: the run was interrupted (Ctrl-C, SIGTERM). */
  | 'interrupted'
  /** cancelled: polar serve stopped it because its batch reached `target_groups` with `tail: "cancel"` (never trained). */
  | 'tail_cancelled';

export type RunStatus = 'running' | 'finished' | 'failed' | 'interrupted';

export interface RunRow {
  id: number;
  name: string;
  createdAt: number;
  finishedAt: number | null;
  status: RunStatus;
  /** Why a failed run failed (e.g. the upstream preflight). */
  statusReason: string | null;
  harness: string;
  datasetPath: string;
  upstream: string;
  samples: number;
  config: Record<string, unknown>;
  ownerPid: number | null;
  ownerHost: string | null;
  stats: Record<string, unknown> | null;
  /** What the run ran against (rollout/run-manifest.ts); null for runs made before manifests. */
  manifest: Record<string, unknown> | null;
}

export interface TaskRow {
  id: number;
  runId: number;
  instanceId: string;
  record: Record<string, unknown>;
}

export interface RunSessionRow {
  id: number;
  key: string;
  runId: number;
  taskId: number;
  instanceId: string;
  sampleIndex: number;
  simulated: boolean;
  stage: SessionStage;
  status: SessionStatus | null;
  statusReason: SessionReason | null;
  statusDetail: string | null;
  /** The agent stage's outcome, stored before evaluation (a resume then only evaluates). */
  agentOutcome: SessionOutcome | null;
  attempts: number;
  /** Calls with a lower seq belong to earlier attempts (kept, not trainable). */
  firstCallSeq: number;
  /** The SSH host (--hosts) the current attempt was placed on; null on the local engine. */
  host: string | null;
  patch: string | null;
  exitCode: number | null;
  timings: Record<string, number>;
  agentLog: string | null;
  reward: number | null;
  evaluation: Record<string, unknown> | null;
  updatedAt: number | null;
  /** Captured calls of the current attempt, all statuses. */
  callCount: number;
  /** Captured calls of the current attempt with status ok (trainable). */
  okCallCount: number;
  /** Calls of the current attempt that failed because the upstream was unreachable or timed out. */
  upstreamFailures: number;
  promptTokens: number;
  sampledTokens: number;
}

export interface NewRun {
  name: string;
  harness: string;
  datasetPath: string;
  upstream: string;
  samples: number;
  config: Record<string, unknown>;
  ownerPid: number;
  ownerHost: string;
}

export interface SessionOutcome {
  status: SessionStatus;
  reason?: SessionReason | null;
  detail?: string | null;
  patch?: string | null;
  exitCode?: number | null;
  agentLog?: string | null;
}

export interface RunRepository extends RunSessionQueries {
  create(input: NewRun): RunRow;
  get(nameOrId: string | number): RunRow | undefined;
  list(): RunRow[];
  setOwner(runId: number, pid: number, host: string): void;
  finish(runId: number, status: RunStatus, stats?: Record<string, unknown>, reason?: string | null): void;
  setManifest(runId: number, manifest: Record<string, unknown>): void;
  setStats(runId: number, stats: Record<string, unknown>): void;
  addTask(runId: number, instanceId: string, record: Record<string, unknown>): TaskRow;
  tasks(runId: number): TaskRow[];
  /** How many tasks the run has (a count: no records read). */
  taskCount(runId: number): number;
  /** Creates the session of one sample of a task, with its key, in stage `queued`. */
  addSession(runId: number, taskId: number, sampleIndex: number, simulated: boolean): RunSessionRow;
  /** Every session with its agent log and patch: small runs only; big ones use iterateSessionSummaries. */
  sessions(runId: number): RunSessionRow[];
  session(id: number): RunSessionRow | undefined;
  setStage(sessionId: number, stage: SessionStage): void;
  /** Adds one attempt (an infrastructure retry or a resume restart). */
  addAttempt(sessionId: number): void;
  /** Records the SSH host the session's current attempt was placed on. */
  setSessionHost(sessionId: number, host: string): void;
  /** Merges phase timings (ms) into the session's timings. */
  addTimings(sessionId: number, timings: Record<string, number>): void;
  /** Stores what the agent stage decided (patch included) before the evaluation runs. */
  setAgentOutcome(sessionId: number, outcome: SessionOutcome): void;
  /** Records the terminal outcome and moves the session to `done`. */
  finishSession(sessionId: number, outcome: SessionOutcome): void;
  /**
   * Starts a new attempt: back to `queued` with no outcome; calls captured so far stay in the store
   * but belong to the earlier attempt (first_call_seq moves past them).
   */
  resetSession(sessionId: number): void;
  setReward(sessionId: number, reward: number | null, evaluation: Record<string, unknown> | null): void;
  /** The current attempt's calls in order: status, HTTP status and timing only (cheap). */
  callOutlines(sessionId: number): SessionCallOutline[];
}

/** One call of a session's current attempt, as failure classification reads it. */
export interface SessionCallOutline {
  seq: number;
  status: string;
  httpStatus: number;
  /** Epoch ms. */
  startedAt: number;
  latencyMs: number;
}

interface RunDbRow {
  id: number;
  name: string;
  created_at: number;
  finished_at: number | null;
  status: string;
  status_reason: string | null;
  harness: string;
  dataset_path: string;
  upstream: string;
  samples: number;
  config: string;
  owner_pid: number | null;
  owner_host: string | null;
  stats: string | null;
  manifest: string | null;
}

interface SessionDbRow {
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
  agent_outcome: string | null;
  attempts: number;
  first_call_seq: number;
  host: string | null;
  patch: string | null;
  exit_code: number | null;
  timings: string | null;
  agent_log: string | null;
  reward: number | null;
  evaluation: string | null;
  updated_at: number | null;
  call_count: number;
  ok_call_count: number;
  upstream_failures: number;
  prompt_tokens: number;
  sampled_tokens: number;
}

function toRun(row: RunDbRow): RunRow {
  return {
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    status: row.status as RunStatus,
    statusReason: row.status_reason,
    harness: row.harness,
    datasetPath: row.dataset_path,
    upstream: row.upstream,
    samples: row.samples,
    config: parseJsonObject(row.config, `run ${row.id} config`) ?? {},
    ownerPid: row.owner_pid,
    ownerHost: row.owner_host,
    stats: parseJsonObject(row.stats, `run ${row.id} stats`),
    manifest: parseJsonObject(row.manifest, `run ${row.id} manifest`),
  };
}

function toSession(row: SessionDbRow): RunSessionRow {
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
    agentOutcome: (parseJsonObject(row.agent_outcome, `session ${row.id} agent outcome`) as SessionOutcome | null),
    attempts: row.attempts,
    firstCallSeq: row.first_call_seq,
    host: row.host,
    patch: row.patch,
    exitCode: row.exit_code,
    timings: parseJsonObject<Record<string, number>>(row.timings, `session ${row.id} timings`) ?? {},
    agentLog: row.agent_log,
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

const SESSION_SELECT = `
  SELECT s.id, s.key, s.run_id, s.task_id, t.instance_id, s.sample_index, s.simulated, s.stage, s.status,
    s.status_reason, s.status_detail, s.agent_outcome, s.attempts, s.first_call_seq, s.host, s.patch, s.exit_code, s.timings, s.agent_log, s.reward, s.evaluation, s.updated_at,
    ${SESSION_CALL_TOTALS}
  FROM sessions s JOIN tasks t ON t.id = s.task_id`;

export function createRunRepository(db: Database.Database): RunRepository {
  const insertRun = db.prepare<[string, number, string, string, string, number, string, number, string], RunDbRow>(
    `INSERT INTO runs (name, created_at, status, harness, dataset_path, upstream, samples, config, owner_pid, owner_host)
     VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const runById = db.prepare<[number], RunDbRow>('SELECT * FROM runs WHERE id = ?');
  const runByName = db.prepare<[string], RunDbRow>('SELECT * FROM runs WHERE name = ?');
  const allRuns = db.prepare<[], RunDbRow>('SELECT * FROM runs ORDER BY id DESC');
  const insertTask = db.prepare<[number, string, string], { id: number }>('INSERT INTO tasks (run_id, instance_id, record) VALUES (?, ?, ?) RETURNING id');
  const tasksOf = db.prepare<[number], { id: number; run_id: number; instance_id: string; record: string }>('SELECT * FROM tasks WHERE run_id = ? ORDER BY id');
  const taskCount = db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM tasks WHERE run_id = ?');
  const insertSession = db.prepare<[string, number, number, number, number, number, number], { id: number }>(
    `INSERT INTO sessions (key, created_at, label, simulated, run_id, task_id, sample_index, stage, updated_at)
     VALUES (?, ?, NULL, ?, ?, ?, ?, 'queued', ?) RETURNING id`,
  );
  const sessionsOf = db.prepare<[number], SessionDbRow>(`${SESSION_SELECT} WHERE s.run_id = ? ORDER BY t.id, s.sample_index`);
  const sessionById = db.prepare<[number], SessionDbRow>(`${SESSION_SELECT} WHERE s.id = ?`);
  const updateOwner = db.prepare<[number, string, number]>("UPDATE runs SET owner_pid = ?, owner_host = ?, status = 'running', status_reason = NULL, finished_at = NULL WHERE id = ?");
  const updateFinished = db.prepare<[string, string | null, number, string | null, number]>(
    'UPDATE runs SET status = ?, status_reason = ?, finished_at = ?, owner_pid = NULL, stats = COALESCE(?, stats) WHERE id = ?',
  );
  const updateManifest = db.prepare<[string, number]>('UPDATE runs SET manifest = ? WHERE id = ?');
  const updateAgentOutcome = db.prepare<[string, number, number]>('UPDATE sessions SET agent_outcome = ?, updated_at = ? WHERE id = ?');
  const updateStats = db.prepare<[string, number]>('UPDATE runs SET stats = ? WHERE id = ?');
  const updateStage = db.prepare<[string, number, number]>('UPDATE sessions SET stage = ?, updated_at = ? WHERE id = ?');
  const updateAttempts = db.prepare<[number, number]>('UPDATE sessions SET attempts = attempts + 1, updated_at = ? WHERE id = ?');
  const updateHost = db.prepare<[string, number, number]>('UPDATE sessions SET host = ?, updated_at = ? WHERE id = ?');
  const timingsOf = db.prepare<[number], { timings: string | null }>('SELECT timings FROM sessions WHERE id = ?');
  const updateTimings = db.prepare<[string, number, number]>('UPDATE sessions SET timings = ?, updated_at = ? WHERE id = ?');
  const updateFinishedSession = db.prepare<[string, string | null, string | null, string | null, number | null, string | null, number, number]>(
    `UPDATE sessions SET stage = 'done', status = ?, status_reason = ?, status_detail = ?, patch = ?, exit_code = ?, agent_log = ?, updated_at = ? WHERE id = ?`,
  );
  const updateReset = db.prepare<[number, number]>(
    `UPDATE sessions SET stage = 'queued', status = NULL, status_reason = NULL, status_detail = NULL, agent_outcome = NULL, patch = NULL, exit_code = NULL, agent_log = NULL,
     reward = NULL, evaluation = NULL, timings = NULL, updated_at = ?,
     first_call_seq = (SELECT COUNT(*) FROM calls WHERE calls.session_id = sessions.id) WHERE id = ?`,
  );
  const updateReward = db.prepare<[number | null, string | null, number, number]>('UPDATE sessions SET reward = ?, evaluation = ?, updated_at = ? WHERE id = ?');
  const outlinesOf = db.prepare<[number], { seq: number; status: string; http_status: number; started_at: number; latency_ms: number }>(
    `SELECT c.seq, c.status, c.http_status, c.started_at, c.latency_ms FROM calls c JOIN sessions s ON s.id = c.session_id
     WHERE c.session_id = ? AND c.seq >= s.first_call_seq ORDER BY c.seq`,
  );
  const now = () => Date.now();

  const session = (id: number): RunSessionRow | undefined => {
    const row = sessionById.get(id);
    return row === undefined ? undefined : toSession(row);
  };
  const mustUpdate = (changes: number, what: string): void => {
    if (changes !== 1) throw new DataError(`${what}: no such row in the database.`);
  };

  return {
    ...createRunSessionQueries(db),
    create(input) {
      const row = insertRun.get(
        input.name,
        now(),
        input.harness,
        input.datasetPath,
        input.upstream,
        input.samples,
        JSON.stringify(input.config),
        input.ownerPid,
        input.ownerHost,
      );
      if (row === undefined) throw new DataError('Inserting a run returned no row.');
      return toRun(row);
    },
    get(nameOrId) {
      const row = typeof nameOrId === 'number' ? runById.get(nameOrId) : (runByName.get(nameOrId) ?? (/^\d+$/.test(nameOrId) ? runById.get(Number(nameOrId)) : undefined));
      return row === undefined ? undefined : toRun(row);
    },
    list: () => allRuns.all().map(toRun),
    setOwner(runId, pid, host) {
      mustUpdate(updateOwner.run(pid, host, runId).changes, `run ${runId}`);
    },
    finish(runId, status, stats, reason) {
      mustUpdate(updateFinished.run(status, reason ?? null, now(), stats ? JSON.stringify(stats) : null, runId).changes, `run ${runId}`);
    },
    setManifest(runId, manifest) {
      mustUpdate(updateManifest.run(JSON.stringify(manifest), runId).changes, `run ${runId}`);
    },
    setAgentOutcome(sessionId, outcome) {
      mustUpdate(updateAgentOutcome.run(JSON.stringify(outcome), now(), sessionId).changes, `session ${sessionId}`);
    },
    setStats(runId, stats) {
      mustUpdate(updateStats.run(JSON.stringify(stats), runId).changes, `run ${runId}`);
    },
    addTask(runId, instanceId, record) {
      const row = insertTask.get(runId, instanceId, JSON.stringify(record));
      if (row === undefined) throw new DataError('Inserting a task returned no row.');
      return { id: row.id, runId, instanceId, record };
    },
    tasks(runId) {
      return tasksOf.all(runId).map((row) => ({
        id: row.id,
        runId: row.run_id,
        instanceId: row.instance_id,
        record: parseJsonObject(row.record, `task ${row.id}`) ?? {},
      }));
    },
    taskCount(runId) {
      return taskCount.get(runId)?.n ?? 0;
    },
    addSession(runId, taskId, sampleIndex, simulated) {
      const row = insertSession.get(createSessionKey(), now(), simulated ? 1 : 0, runId, taskId, sampleIndex, now());
      const created = row === undefined ? undefined : session(row.id);
      if (created === undefined) throw new DataError('Inserting a session returned no row.');
      return created;
    },
    sessions: (runId) => sessionsOf.all(runId).map(toSession),
    session,
    setStage(sessionId, stage) {
      mustUpdate(updateStage.run(stage, now(), sessionId).changes, `session ${sessionId}`);
    },
    addAttempt(sessionId) {
      mustUpdate(updateAttempts.run(now(), sessionId).changes, `session ${sessionId}`);
    },
    setSessionHost(sessionId, host) {
      mustUpdate(updateHost.run(host, now(), sessionId).changes, `session ${sessionId}`);
    },
    addTimings(sessionId, timings) {
      const row = timingsOf.get(sessionId);
      if (row === undefined) throw new DataError(`session ${sessionId}: no such row in the database.`);
      const current = parseJsonObject<Record<string, number>>(row.timings, `session ${sessionId} timings`) ?? {};
      updateTimings.run(JSON.stringify({ ...current, ...timings }), now(), sessionId);
    },
    finishSession(sessionId, outcome) {
      mustUpdate(
        updateFinishedSession.run(outcome.status, outcome.reason ?? null, outcome.detail ?? null, outcome.patch ?? null, outcome.exitCode ?? null, outcome.agentLog ?? null, now(), sessionId).changes,
        `session ${sessionId}`,
      );
    },
    resetSession(sessionId) {
      mustUpdate(updateReset.run(now(), sessionId).changes, `session ${sessionId}`);
    },
    callOutlines(sessionId) {
      return outlinesOf.all(sessionId).map((row) => ({ seq: row.seq, status: row.status, httpStatus: row.http_status, startedAt: row.started_at, latencyMs: row.latency_ms }));
    },
    setReward(sessionId, reward, evaluation) {
      mustUpdate(updateReward.run(reward, evaluation ? JSON.stringify(evaluation) : null, now(), sessionId).changes, `session ${sessionId}`);
    },
  };
}
