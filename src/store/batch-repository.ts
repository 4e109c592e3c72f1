// Batches of `polar serve` (POST /v1/rollouts) and the groups they completed: durable, so a killed
// server resumes every unfinished batch under the same id and a retried submit never doubles work.
import type Database from 'better-sqlite3';
import { parseJsonObject } from './parse-json-object.js';

export type BatchStatus = 'queued' | 'running' | 'finished' | 'cancelled' | 'failed';

export interface BatchRow {
  id: string;
  runName: string;
  idempotencyKey: string | null;
  requestHash: string;
  request: Record<string, unknown>;
  policyVersion: number;
  status: BatchStatus;
  statusReason: string | null;
  createdAt: number;
  finishedAt: number | null;
  callbackUrl: string | null;
  /** What polar serve decided when the batch's `target_groups` were complete (tail cancel / carry); null before. */
  tailDecision: TailDecision | null;
}

/** The tail decision of a batch with `target_groups` (saved before it is acted on: a restart keeps it). */
export interface TailDecision {
  policy: 'cancel' | 'carry';
  /** Epoch ms the target was reached. */
  reachedAt: number;
  /** Task ids of the groups complete at that moment. */
  completeTaskIds: number[];
  /** cancel: the sessions that had not ended (stopped, status cancelled, reason tail_cancelled). */
  cancelled: number[];
  /** carry: the sessions that had not ended (they run on; their groups are delivered when complete). */
  carried: number[];
}

export interface BatchGroupRow {
  /** Completion order over all batches: the results cursor. */
  seq: number;
  batchId: string;
  taskId: number;
  instanceId: string;
  completedAt: number;
  callbackStatus: 'delivered' | 'failed' | null;
  callbackAttempts: number;
  callbackLastError: string | null;
}

/** A batch as submitted: the store sets its status and times. */
export type NewBatch = Omit<BatchRow, 'status' | 'statusReason' | 'createdAt' | 'finishedAt' | 'tailDecision'>;

export interface BatchRepository {
  create(input: NewBatch): BatchRow;
  get(id: string): BatchRow | undefined;
  byIdempotencyKey(key: string): BatchRow | undefined;
  list(): BatchRow[];
  /** Batches not yet finished, cancelled or failed, oldest first. */
  unfinished(): BatchRow[];
  setStatus(id: string, status: BatchStatus, reason?: string | null): void;
  /** Saves the batch's tail decision once; false when one was saved before (it stays: read it with tailDecision). */
  setTailDecision(id: string, decision: TailDecision): boolean;
  /** The batch's callback_url (null without one, or for an unknown batch), without reading its request. */
  callbackUrl(id: string): string | null;
  /** The batch's saved tail decision (null before one, or for an unknown batch), without reading its request. */
  tailDecision(id: string): TailDecision | null;
  /** Records a completed group once; returns its row, or undefined when it was recorded before. */
  completeGroup(batchId: string, taskId: number, instanceId: string): BatchGroupRow | undefined;
  /** Completed groups of a batch after `afterSeq`, in completion order. */
  groups(batchId: string, afterSeq?: number): BatchGroupRow[];
  /** How many groups of the batch are completed (a count: no rows read). */
  groupCount(batchId: string): number;
  recordCallback(seq: number, status: 'delivered' | 'failed' | null, error: string | null): void;
  /** The policy version last set by a resume (survives a restart); undefined before the first. */
  policyVersion(): number | undefined;
  setPolicyVersion(version: number): void;
}

interface BatchRecord {
  id: string;
  run_name: string;
  idempotency_key: string | null;
  request_hash: string;
  request: string;
  policy_version: number;
  status: BatchStatus;
  status_reason: string | null;
  created_at: number;
  finished_at: number | null;
  callback_url: string | null;
  tail_decision: string | null;
}

interface GroupRecord {
  seq: number;
  batch_id: string;
  task_id: number;
  instance_id: string;
  completed_at: number;
  callback_status: 'delivered' | 'failed' | null;
  callback_attempts: number;
  callback_last_error: string | null;
}

const TERMINAL: ReadonlySet<BatchStatus> = new Set(['finished', 'cancelled', 'failed']);

function toBatch(record: BatchRecord): BatchRow {
  return {
    id: record.id,
    runName: record.run_name,
    idempotencyKey: record.idempotency_key,
    requestHash: record.request_hash,
    request: parseJsonObject(record.request, `batch ${record.id} request`) ?? {},
    policyVersion: record.policy_version,
    status: record.status,
    statusReason: record.status_reason,
    createdAt: record.created_at,
    finishedAt: record.finished_at,
    callbackUrl: record.callback_url,
    tailDecision: toTailDecision(record.id, record.tail_decision),
  };
}

function toTailDecision(id: string, json: string | null): TailDecision | null {
  return json === null ? null : (parseJsonObject(json, `batch ${id} tail decision`) as unknown as TailDecision | null);
}

function toGroup(record: GroupRecord): BatchGroupRow {
  return {
    seq: record.seq,
    batchId: record.batch_id,
    taskId: record.task_id,
    instanceId: record.instance_id,
    completedAt: record.completed_at,
    callbackStatus: record.callback_status,
    callbackAttempts: record.callback_attempts,
    callbackLastError: record.callback_last_error,
  };
}

export function createBatchRepository(db: Database.Database): BatchRepository {
  const insert = db.prepare(
    `INSERT INTO batches (id, run_name, idempotency_key, request_hash, request, policy_version, status, created_at, callback_url)
     VALUES (@id, @runName, @idempotencyKey, @requestHash, @request, @policyVersion, 'queued', @createdAt, @callbackUrl)`,
  );
  const byId = db.prepare('SELECT * FROM batches WHERE id = ?');
  const byKey = db.prepare('SELECT * FROM batches WHERE idempotency_key = ?');
  const all = db.prepare('SELECT * FROM batches ORDER BY created_at, id');
  const open = db.prepare("SELECT * FROM batches WHERE status IN ('queued', 'running') ORDER BY created_at, id");
  const setStatus = db.prepare('UPDATE batches SET status = ?, status_reason = ?, finished_at = ? WHERE id = ?');
  const setTail = db.prepare('UPDATE batches SET tail_decision = ? WHERE id = ? AND tail_decision IS NULL');
  const callbackOf = db.prepare<[string], { callback_url: string | null }>('SELECT callback_url FROM batches WHERE id = ?');
  const tailOf = db.prepare<[string], { tail_decision: string | null }>('SELECT tail_decision FROM batches WHERE id = ?');
  const addGroup = db.prepare(
    'INSERT OR IGNORE INTO batch_groups (batch_id, task_id, instance_id, completed_at) VALUES (?, ?, ?, ?) RETURNING *',
  );
  const groups = db.prepare('SELECT * FROM batch_groups WHERE batch_id = ? AND seq > ? ORDER BY seq');
  const groupCount = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM batch_groups WHERE batch_id = ?');
  const callback = db.prepare(
    'UPDATE batch_groups SET callback_status = ?, callback_attempts = callback_attempts + 1, callback_last_error = ? WHERE seq = ?',
  );
  const readState = db.prepare<[string], { value: string }>('SELECT value FROM serve_state WHERE key = ?');
  const writeState = db.prepare('INSERT INTO serve_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  return {
    policyVersion() {
      const row = readState.get('policy_version');
      return row === undefined ? undefined : Number(row.value);
    },
    setPolicyVersion(version) {
      writeState.run('policy_version', String(version));
    },
    create(input) {
      insert.run({ ...input, request: JSON.stringify(input.request), createdAt: Date.now() });
      return toBatch(byId.get(input.id) as BatchRecord);
    },
    get(id) {
      const record = byId.get(id) as BatchRecord | undefined;
      return record === undefined ? undefined : toBatch(record);
    },
    byIdempotencyKey(key) {
      const record = byKey.get(key) as BatchRecord | undefined;
      return record === undefined ? undefined : toBatch(record);
    },
    list() {
      return (all.all() as BatchRecord[]).map(toBatch);
    },
    unfinished() {
      return (open.all() as BatchRecord[]).map(toBatch);
    },
    setStatus(id, status, reason = null) {
      setStatus.run(status, reason, TERMINAL.has(status) ? Date.now() : null, id);
    },
    setTailDecision(id, decision) {
      return setTail.run(JSON.stringify(decision), id).changes === 1;
    },
    callbackUrl(id) {
      return callbackOf.get(id)?.callback_url ?? null;
    },
    tailDecision(id) {
      return toTailDecision(id, tailOf.get(id)?.tail_decision ?? null);
    },
    completeGroup(batchId, taskId, instanceId) {
      const record = addGroup.get(batchId, taskId, instanceId, Date.now()) as GroupRecord | undefined;
      return record === undefined ? undefined : toGroup(record);
    },
    groups(batchId, afterSeq = 0) {
      return (groups.all(batchId, afterSeq) as GroupRecord[]).map(toGroup);
    },
    groupCount(batchId) {
      return groupCount.get(batchId)?.n ?? 0;
    },
    recordCallback(seq, status, error) {
      callback.run(status, error, seq);
    },
  };
}
