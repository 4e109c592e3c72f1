// `polar eval swebench --run`: evaluates the patches of a rollout's sessions and stores their rewards.
import { NotFoundError } from '../../errors.js';
import type { ContainerLimits, ContainerRuntime, PullProgressEvent } from '../../runtime/container-runtime.js';
import type { Store } from '../../store/open-store.js';
import type { RunRow, SessionStatus, TaskRow } from '../../store/run-repository.js';
import type { RunSessionSummary } from '../../store/run-session-queries.js';
import type { EvalOutcome, EvalTimings } from './evaluate-instance.js';
import { evaluateSessionPatch } from './evaluate-session-patch.js';
import { makeEvalScript } from './make-eval-script.js';
import { parseSwebenchRecord } from './parse-swebench-record.js';
import { resolveLogParser } from './resolve-eval-spec.js';
import { runWithConcurrency } from './run-with-concurrency.js';
import type { SwebenchRecord } from './swebench-record.js';

/**
 * Sessions whose patch is evaluated: the agent finished (completed), failed (agent_error) or ran out
 * of time (timeout) but may have left a patch; eval_error sessions are retried. infra_error and
 * cancelled sessions never reached a fair end, so they get no reward (they must not enter a GRPO
 * group as zeros), and sessions not yet done are left alone.
 */
export const EVALUATED_STATUSES: ReadonlySet<SessionStatus> = new Set<SessionStatus>(['completed', 'agent_error', 'timeout', 'eval_error']);

export type SessionEvalEvent =
  | { type: 'sessions-start'; runId: number; runName: string; toEvaluate: number; skipped: number; concurrency: number }
  | { type: 'image-pull'; sessionId: number; instanceId: string; image: string; progress: PullProgressEvent }
  | { type: 'session-eval-start'; sessionId: number; instanceId: string; sampleIndex: number }
  | ({ type: 'session-eval-end'; done: number; of: number } & EvaluatedSession);

export interface RunSessionsEvalOptions {
  concurrency: number;
  /** eval.sh timeout per session; default 1800 s. */
  timeoutMs?: number;
  /** Also evaluate sessions that already have a verdict (by default only those without one, or with an 'error' one). */
  reevaluate?: boolean;
  /** Only sessions of these instances; all when absent or empty. */
  instanceIds?: readonly string[];
  onEvent?: (event: SessionEvalEvent) => void;
  signal?: AbortSignal;
  /** Resource limits of each evaluation container (none by default, like the official harness). */
  limits?: ContainerLimits;
}

export interface EvaluatedSession {
  sessionId: number;
  instanceId: string;
  sampleIndex: number;
  outcome: EvalOutcome;
  reward: number | null;
  timings: EvalTimings;
  error?: string;
}

export interface RunSessionsEvaluation {
  run: RunRow;
  evaluated: EvaluatedSession[];
  skipped: { sessionId: number; instanceId: string; reason: string }[];
  wallMs: number;
}

/**
 * Finds the run (NotFoundError), reads its tasks back into records (a DataError before any
 * container when one cannot be evaluated), then evaluates each eligible session with at most
 * `concurrency` containers and stores reward and verdict on it (evaluateSessionPatch).
 */
export async function evaluateRunSessions(store: Store, runtime: ContainerRuntime, runNameOrId: string | number, options: RunSessionsEvalOptions): Promise<RunSessionsEvaluation> {
  const started = performance.now();
  const run = store.runs.get(runNameOrId);
  if (run === undefined) throw new NotFoundError(`no run "${runNameOrId}" in ${store.path}`, 'List the runs with: polar runs list');
  const tasks = new Map(store.runs.tasks(run.id).map((task) => [task.id, task]));
  const records = new Map<number, SwebenchRecord>();
  // Light summaries only: each worker reads its session's patch when it starts (8,000 patches are never held at once).
  const eligible: RunSessionSummary[] = [];
  const skipped: RunSessionsEvaluation['skipped'] = [];
  const wanted = options.instanceIds !== undefined && options.instanceIds.length > 0 ? new Set(options.instanceIds) : undefined;
  for (const session of store.runs.iterateSessionSummaries(run.id)) {
    const reason = wanted !== undefined && !wanted.has(session.instanceId) ? 'instance not selected' : skipReason(session, options.reevaluate ?? false);
    if (reason !== undefined) {
      skipped.push({ sessionId: session.id, instanceId: session.instanceId, reason });
      continue;
    }
    const task = tasks.get(session.taskId);
    if (task === undefined) throw new NotFoundError(`session ${session.id} of run ${run.name} has no task ${session.taskId}`, 'The database may be corrupt.');
    if (!records.has(task.id)) records.set(task.id, recordFromTask(task, store.path));
    eligible.push(session);
  }
  const { onEvent, signal } = options;
  onEvent?.({ type: 'sessions-start', runId: run.id, runName: run.name, toEvaluate: eligible.length, skipped: skipped.length, concurrency: options.concurrency });
  if (eligible.some((session) => session.patchBytes !== null && session.patchBytes > 0)) await runtime.ping();

  let done = 0;
  const evaluated = await runWithConcurrency(
    eligible,
    options.concurrency,
    async (session): Promise<EvaluatedSession> => {
      const record = records.get(session.taskId) as SwebenchRecord;
      const { id: sessionId, instanceId, sampleIndex } = session;
      onEvent?.({ type: 'session-eval-start', sessionId, instanceId, sampleIndex });
      const patch = store.runs.sessionPatch(sessionId) ?? null;
      const { reward, verdict } = await evaluateSessionPatch({ runtime, runs: store.runs, runName: run.name }, { id: sessionId, patch }, record, {
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.limits !== undefined ? { limits: options.limits } : {}),
        ...(signal !== undefined ? { signal } : {}),
        onProgress: (event) => {
          if (event.type === 'image-pull') onEvent?.({ type: 'image-pull', sessionId, instanceId, image: event.image, progress: event.progress });
        },
      });
      done += 1;
      const error = verdict.error;
      const result: EvaluatedSession = { sessionId, instanceId, sampleIndex, outcome: verdict.outcome, reward, timings: verdict.timings, ...(error !== undefined ? { error } : {}) };
      onEvent?.({ type: 'session-eval-end', ...result, done, of: eligible.length });
      return result;
    },
    signal,
  );
  return { run, evaluated, skipped, wallMs: Math.round(performance.now() - started) };
}

function skipReason(session: RunSessionSummary, reevaluate: boolean): string | undefined {
  if (session.stage !== 'done' || session.status === null) return `not finished (stage ${session.stage})`;
  if (!EVALUATED_STATUSES.has(session.status)) return `status ${session.status} is not evaluated`;
  const previous = session.evaluation?.['outcome'];
  if (!reevaluate && previous !== undefined && previous !== 'error') return `already evaluated (${String(previous)})`;
  return undefined;
}

/**
 * The task's stored row (a dataset row, written with recordToRow) as a record. Throws a DataError
 * (naming the run database and task) when the row is not a usable SWE-bench record.
 */
export function recordFromTask(task: TaskRow, dbPath: string): SwebenchRecord {
  const record = parseSwebenchRecord(task.record, `${dbPath} task ${task.id}`);
  makeEvalScript(record);
  resolveLogParser(record);
  return record;
}
