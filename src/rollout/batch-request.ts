// A batch submitted to the rollout engine (`polar serve` POST /v1/rollouts), checked before anything is stored.
import { createHash } from 'node:crypto';
import { DEFAULT_ROLLOUT_SAMPLING, resolveSamplingPolicy, type SamplingPolicy } from '../config/sampling-policy.js';
import { UsageError } from '../errors.js';
import { parseSwebenchRecord } from '../eval/swebench/parse-swebench-record.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import { loadHarness } from '../harness/load-harness-manifest.js';
import type { TailPolicy } from './admission/tail-policy.js';
import type { CaptureMode } from './batch-capture.js';

export interface BatchRequest {
  harness: string;
  /** SWE-bench rows; or `dataset` (+ `instanceIds`). */
  tasks?: Record<string, unknown>[];
  /** A dataset file or Hub name the server can read (instead of `tasks`). */
  dataset?: string;
  instanceIds?: string[];
  /** Sessions per task (a GRPO group); default 1. */
  samples?: number;
  /** Sampling fields (snake_case or camelCase: temperature, top_p, top_k, min_p, max_tokens, seed). */
  sampling?: Record<string, number>;
  /** The policy version the trainer wants these samples from; default: the server's current one. */
  policyVersion?: number;
  /** Deadline of one session's agent, in seconds (default: the server's). */
  timeoutSeconds?: number;
  /** The whole batch is cancelled when it has not finished this many seconds after submission. */
  deadlineSeconds?: number;
  /** Agents of this batch running at once (default: the server's). */
  concurrency?: number;
  /** Evaluate patches (SWE-bench) for rewards (default: the server's, true). */
  evaluate?: boolean;
  /** Run although the server's logprobs are not this sampling's distribution (recorded in the manifest). */
  allowLogprobMismatch?: boolean;
  callbackUrl?: string;
  idempotencyKey?: string;
  /**
   * The batch counts as done for the trainer once this many groups (tasks) are complete (default: all). With a
   * dataset and no instance ids, capped at the dataset's size.
   */
  targetGroups?: number;
  /** What happens to the sessions still going when the target is reached (default wait; tail-policy.ts). */
  tail?: TailPolicy;
  /**
   * How the batch's calls are captured (default: the server's, `token_in` with --token-in). Stored resolved, so a
   * batch resumed after a restart keeps it; a batch stored without one (made before capture modes) is chat.
   */
  capture?: CaptureMode;
}

/** The capture mode a stored batch runs with. */
export function batchCapture(request: BatchRequest): CaptureMode {
  return request.capture ?? 'chat';
}

const SAMPLING_KEYS: Record<string, 'temperature' | 'topP' | 'topK' | 'minP' | 'maxTokens' | 'seed'> = {
  temperature: 'temperature',
  top_p: 'topP',
  topP: 'topP',
  top_k: 'topK',
  topK: 'topK',
  min_p: 'minP',
  minP: 'minP',
  max_tokens: 'maxTokens',
  maxTokens: 'maxTokens',
  seed: 'seed',
};

/**
 * The run's sampling policy from a request's `sampling` object over the server's (`polar serve --temperature …`;
 * default DEFAULT_ROLLOUT_SAMPLING): a field the request sets wins. UsageError for unknown fields or bad values.
 */
export function batchSampling(sampling: Record<string, number> | undefined, defaults: SamplingPolicy = DEFAULT_ROLLOUT_SAMPLING): SamplingPolicy {
  const flags: Record<string, number> = {};
  for (const [key, value] of Object.entries(sampling ?? {})) {
    const field = SAMPLING_KEYS[key];
    if (field === undefined) throw new UsageError(`sampling.${key} is not a sampling field`, `Known: ${Object.keys(SAMPLING_KEYS).join(', ')}.`);
    if (typeof value !== 'number') throw new UsageError(`sampling.${key} must be a number`);
    flags[field] = value;
  }
  return resolveSamplingPolicy(flags, defaults);
}

/**
 * Checks what can be checked without Docker or the upstream: the harness exists, every row is a SWE-bench
 * record, sampling values are valid. Throws UsageError / NotFoundError / DataError with the row named.
 */
export function checkBatchRequest(request: BatchRequest): SwebenchRecord[] {
  loadHarness(request.harness);
  batchSampling(request.sampling);
  if ((request.tasks === undefined) === (request.dataset === undefined)) {
    throw new UsageError('a batch needs exactly one of tasks (SWE-bench rows) or dataset', 'e.g. {"harness":"pi","tasks":[{...}],"samples":2}');
  }
  if (request.tasks !== undefined && request.tasks.length === 0) throw new UsageError('tasks is empty');
  const records = (request.tasks ?? []).map((row, index) => parseSwebenchRecord(row, `tasks[${index}]`));
  checkTarget(request);
  const ids = new Set<string>();
  for (const record of records) {
    if (ids.has(record.instance_id)) throw new UsageError(`tasks has instance ${record.instance_id} twice`, 'Use samples for several sessions of one task.');
    ids.add(record.instance_id);
  }
  return records;
}

/** target_groups at most the batch's groups (when known before the run: tasks or instance_ids); a tail past wait needs one. */
function checkTarget(request: BatchRequest): void {
  const groups = request.tasks?.length ?? request.instanceIds?.length;
  const target = request.targetGroups;
  if (target !== undefined && groups !== undefined && target > groups) {
    throw new UsageError(`target_groups is ${target} but the batch has ${groups} group${groups === 1 ? '' : 's'} (one per task)`, `Send target_groups between 1 and ${groups}, or more tasks.`);
  }
  if (target === undefined && request.tail !== undefined && request.tail !== 'wait') {
    throw new UsageError(`tail "${request.tail}" needs target_groups (how many complete groups make the batch done)`, 'e.g. {"target_groups": 8, "tail": "carry"} on a batch of 10 tasks; without it the batch waits for all groups.');
  }
}

/** The batch's target: its target_groups capped at `groups` (the run's tasks), else every group. */
export function effectiveTarget(request: BatchRequest, groups: number): number {
  return Math.min(request.targetGroups ?? groups, groups);
}

/** sha256 of the request without its idempotency key (same key + same body → same batch). */
export function requestHash(request: BatchRequest): string {
  const { idempotencyKey: _key, ...rest } = request;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
