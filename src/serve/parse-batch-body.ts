// The JSON body of POST /v1/rollouts (snake_case, fixed names) → the engine's BatchRequest.
import { z } from 'zod';
import type { BatchRequest } from '../rollout/batch-request.js';
import { UsageError } from '../errors.js';
import { MAX_TIMER_SECONDS } from '../config/numeric-bounds.js';
import { TAIL_POLICIES } from '../rollout/admission/tail-policy.js';
import { CAPTURE_MODES, type CaptureMode } from '../rollout/batch-capture.js';

// zod's int() is a safe integer (at most 2^53 - 1); durations in seconds at most what a Node timer holds.
const positiveInt = z.number().int().min(1);
const seconds = positiveInt.max(MAX_TIMER_SECONDS);
type TailPolicyName = (typeof TAIL_POLICIES)[number];

export const BATCH_BODY = z
  .object({
    harness: z.string().min(1),
    tasks: z.array(z.record(z.string(), z.unknown())).optional(),
    dataset: z.string().min(1).optional(),
    instance_ids: z.array(z.string().min(1)).optional(),
    samples: positiveInt.max(1024).optional(),
    sampling: z.record(z.string(), z.number()).optional(),
    policy_version: z.number().int().min(0).optional(),
    timeout_seconds: seconds.optional(),
    deadline_seconds: seconds.optional(),
    concurrency: positiveInt.max(1024).optional(),
    evaluate: z.boolean().optional(),
    allow_logprob_mismatch: z.boolean().optional(),
    callback_url: z.url({ protocol: /^https?$/ }).optional(),
    idempotency_key: z.string().min(1).max(200).optional(),
    target_groups: positiveInt.optional(),
    tail: z.enum(TAIL_POLICIES as [TailPolicyName, ...TailPolicyName[]]).optional(),
    capture: z.enum(CAPTURE_MODES as [CaptureMode, ...CaptureMode[]]).optional(),
  })
  .strict();

/** Parses a submit body; `headerKey` (Idempotency-Key) wins over the body's idempotency_key. Throws UsageError. */
export function parseBatchBody(body: unknown, headerKey: string | undefined): BatchRequest {
  const parsed = BATCH_BODY.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.join('.');
    throw new UsageError(`${where}: ${issue?.message ?? 'invalid'}`, 'See the request schema at GET /openapi.json (#/components/schemas/BatchRequest).');
  }
  const value = parsed.data;
  if (headerKey !== undefined && value.idempotency_key !== undefined && headerKey !== value.idempotency_key) {
    throw new UsageError('the Idempotency-Key header and the body\'s idempotency_key differ', 'Send one of them, or the same key in both.');
  }
  const key = headerKey ?? value.idempotency_key;
  const request: BatchRequest = { harness: value.harness };
  if (value.tasks !== undefined) request.tasks = value.tasks;
  if (value.dataset !== undefined) request.dataset = value.dataset;
  if (value.instance_ids !== undefined) request.instanceIds = value.instance_ids;
  if (value.samples !== undefined) request.samples = value.samples;
  if (value.sampling !== undefined) request.sampling = value.sampling;
  if (value.policy_version !== undefined) request.policyVersion = value.policy_version;
  if (value.timeout_seconds !== undefined) request.timeoutSeconds = value.timeout_seconds;
  if (value.deadline_seconds !== undefined) request.deadlineSeconds = value.deadline_seconds;
  if (value.concurrency !== undefined) request.concurrency = value.concurrency;
  if (value.evaluate !== undefined) request.evaluate = value.evaluate;
  if (value.allow_logprob_mismatch !== undefined) request.allowLogprobMismatch = value.allow_logprob_mismatch;
  if (value.callback_url !== undefined) request.callbackUrl = value.callback_url;
  if (key !== undefined) request.idempotencyKey = key;
  if (value.target_groups !== undefined) request.targetGroups = value.target_groups;
  if (value.tail !== undefined) request.tail = value.tail;
  if (value.capture !== undefined) request.capture = value.capture;
  return request;
}
