// Evaluates one rollout session's patch and stores its reward (1 resolved, 0 not, null on an eval error).
import { DockerUnavailableError } from '../../errors.js';
import type { ContainerHandle, ContainerLimits, ContainerRuntime } from '../../runtime/container-runtime.js';
import type { RunRepository, RunSessionRow } from '../../store/run-repository.js';
import { DEFAULT_EVAL_TIMEOUT_SECONDS } from './eval-constants.js';
import { evaluateInstance, type EvalOutcome, type EvalTimings, type InstanceProgress } from './evaluate-instance.js';
import { instanceImageName } from './instance-image-name.js';
import type { InstanceReport } from './make-instance-report.js';
import type { SwebenchRecord } from './swebench-record.js';

/** What is stored as the session's `evaluation` (JSON). */
export interface SessionVerdict {
  [key: string]: unknown;
  /** 'error' means no verdict (the lead maps it to the eval_error session status); reward is then null. */
  outcome: EvalOutcome;
  resolved: boolean;
  /** The report.json content; null for 'error' and 'empty'. */
  report: InstanceReport | null;
  timings: EvalTimings;
  image: string;
  /** Why the outcome is 'error'. */
  error?: string;
}

export interface SessionEvaluation {
  /** 1 resolved, 0 unresolved or empty patch, null on an evaluation error. */
  reward: number | null;
  verdict: SessionVerdict;
}

export interface SessionEvalEnvironment {
  runtime: ContainerRuntime;
  runs: Pick<RunRepository, 'setReward'>;
  /** Run name, for the container labels (as the rollout's own containers carry it). */
  runName: string;
}

export interface SessionPatchOptions {
  /** eval.sh timeout; default DEFAULT_EVAL_TIMEOUT_SECONDS. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (event: InstanceProgress) => void;
  /** A fresh eval container started earlier with runEvalContainer (e.g. while the agent ran). */
  container?: ContainerHandle;
  limits?: ContainerLimits;
}

/**
 * Evaluates `session.patch` for `record` (null or "" → 'empty', reward 0, no container) and stores
 * `setReward(session.id, reward, verdict)`. Any failure of the evaluation itself, including a record
 * polar cannot build an eval script for, is stored as outcome 'error' with reward null. An abort or
 * an unreachable Docker engine rejects without storing anything.
 */
export async function evaluateSessionPatch(
  env: SessionEvalEnvironment,
  session: Pick<RunSessionRow, 'id' | 'patch'>,
  record: SwebenchRecord,
  options: SessionPatchOptions = {},
): Promise<SessionEvaluation> {
  const image = instanceImageName(record);
  let verdict: SessionVerdict;
  try {
    const result = await evaluateInstance(env.runtime, record, session.patch, {
      timeoutMs: options.timeoutMs ?? DEFAULT_EVAL_TIMEOUT_SECONDS * 1000,
      labels: { runId: env.runName, sessionId: String(session.id) },
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      ...(options.onProgress !== undefined ? { onProgress: options.onProgress } : {}),
      ...(options.container !== undefined ? { container: options.container } : {}),
      ...(options.limits !== undefined ? { limits: options.limits } : {}),
    });
    verdict = {
      outcome: result.outcome,
      resolved: result.outcome === 'resolved',
      report: result.report,
      timings: result.timings,
      image: result.image,
      ...(result.error !== undefined ? { error: result.error } : {}),
    };
  } catch (error) {
    if (options.signal?.aborted || error instanceof DockerUnavailableError) throw error;
    await options.container?.remove().catch(() => undefined);
    verdict = { outcome: 'error', resolved: false, report: null, timings: { setup: 0, tests: 0, teardown: 0 }, image, error: (error as Error).message };
  }
  const reward = verdict.outcome === 'error' ? null : verdict.resolved ? 1 : 0;
  env.runs.setReward(session.id, reward, verdict);
  return { reward, verdict };
}
