// The OpenAPI 3.1 description of `polar serve`, served at GET /openapi.json (hand-written; a test checks
// that it lists every route the app serves).
import { MAX_SAFE_INTEGER, MAX_TIMER_MS, MAX_TIMER_SECONDS } from '../config/numeric-bounds.js';
import { MAX_TEMPERATURE } from '../config/sampling-policy.js';

const error = { $ref: '#/components/responses/Error' };
const secured = [{ bearer: [] }];
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'Batch id (b_…).' };
const json = (schema: object, example?: unknown) => ({ 'application/json': { schema, ...(example !== undefined ? { example } : {}) } });
// Numeric bounds (config/numeric-bounds.ts): integers at most 2^53 - 1, durations at most what a Node timer holds.
const version = { type: 'integer', minimum: 0, maximum: MAX_SAFE_INTEGER };
const seconds = { type: 'integer', minimum: 1, maximum: MAX_TIMER_SECONDS };

export const OPENAPI_DOCUMENT = {
  openapi: '3.1.0',
  info: {
    title: 'polar serve',
    version: '1',
    description:
      'The rollout service a trainer talks to: submit batches of SWE-bench tasks, take completed groups as export rows, pause generation around weight syncs. Every /v1 route needs `Authorization: Bearer <token>`.',
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    responses: {
      Error: {
        description: 'A JSON error: 400 invalid_request, 401 unauthorized, 404 not_found, 409 conflict or capture_unavailable, 413 payload_too_large, 500 internal, 502 engine_error.',
        content: json({ $ref: '#/components/schemas/Error' }, { error: { type: 'invalid_request', message: 'harness: Invalid input' } }),
      },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'object', required: ['type', 'message'], properties: { type: { type: 'string' }, message: { type: 'string' }, hint: { type: 'string' } } } },
      },
      BatchRequest: {
        type: 'object',
        required: ['harness'],
        additionalProperties: false,
        description: 'Exactly one of tasks or dataset.',
        properties: {
          harness: { type: 'string', description: 'codex | claude-code | qwen-code | pi | gemini-cli' },
          tasks: { type: 'array', items: { type: 'object' }, description: 'SWE-bench rows (instance_id, repo, base_commit, problem_statement, …).' },
          dataset: { type: 'string', description: 'A dataset file or Hub name the server can read, instead of tasks.' },
          instance_ids: { type: 'array', items: { type: 'string' }, description: 'With dataset: only these instances.' },
          samples: { type: 'integer', minimum: 1, maximum: 1024, default: 1, description: 'Sessions per task (a GRPO group).' },
          sampling: {
            type: 'object',
            additionalProperties: { type: 'number' },
            description: `temperature [0, ${MAX_TEMPERATURE}], top_p (0, 1], top_k -1 (off) or a positive integer, min_p [0, 1], max_tokens ≥ 1, seed; integers at most 2^53 - 1 in size.`,
          },
          policy_version: { ...version, description: 'Default: the current version.' },
          timeout_seconds: { ...seconds, description: "Deadline of one session's agent (at most 2147483 s, the longest Node timer)." },
          deadline_seconds: { ...seconds, description: 'The batch is cancelled when not finished this long after submission (at most 2147483 s).' },
          concurrency: { type: 'integer', minimum: 1, maximum: 1024, description: 'Agents of this batch at once.' },
          evaluate: { type: 'boolean', default: true, description: 'Grade patches (rewards).' },
          allow_logprob_mismatch: { type: 'boolean', default: false, description: "Run although the server's logprobs are raw and this sampling modifies the distribution (else the batch fails, as a rollout exits 3)." },
          callback_url: { type: 'string', format: 'uri', description: 'POSTed a CallbackBody for each completed group, retried with backoff.' },
          idempotency_key: { type: 'string', description: 'Or the Idempotency-Key header: same key + same body → same id; another body → 409.' },
          target_groups: {
            type: 'integer',
            minimum: 1,
            maximum: MAX_SAFE_INTEGER,
            description: "The batch counts as done for the trainer once this many groups (tasks) are complete; at most the batch's groups (a dataset without instance_ids: capped at its size). Default: every group.",
          },
          capture: {
            enum: ['token_in', 'chat'],
            description:
              "How the batch's calls are captured. token_in: a call that continues a lineage goes upstream as the lineage's exact tokens plus the new tail (vLLM /v1/completions, SGLang /generate), so each lineage exports as one row with no drift; a call that cannot be spliced goes the chat way with a typed reason. chat: every call through the engine's chat endpoint with token ids. Default: the server's (token_in when started with --token-in, else chat). Checked at submit against what each upstream's preflight found (run once): a mode an upstream cannot serve is refused with 409 capture_unavailable (message: what the engine lacks; hint: the fix) and nothing is stored.",
          },
          tail: {
            enum: ['wait', 'cancel', 'carry'],
            default: 'wait',
            description:
              'At the target, the sessions still going: wait = the batch ends when all ended (as without a target); cancel = they are stopped (calls aborted, containers removed), end cancelled / tail_cancelled, are listed in excluded and never delivered, and the batch is finished; carry = a target_reached event is sent and they run on (across a keep pause, each token records its version), their groups delivered through the results cursor when complete. cancel and carry need target_groups.',
          },
        },
      },
      Batch: {
        type: 'object',
        required: ['id', 'status', 'sessions'],
        properties: {
          id: { type: 'string' },
          status: { enum: ['queued', 'running', 'finished', 'cancelled', 'failed'] },
          status_reason: { type: ['string', 'null'] },
          run: { type: 'string', description: 'The run holding the sessions (polar runs show, polar export).' },
          harness: { type: 'string' },
          policy_version: { type: 'integer' },
          capture: { enum: ['token_in', 'chat'], description: "The batch's capture mode (as asked, else the server's default at submit); a batch resumed after a restart keeps it." },
          created_at: { type: 'string', format: 'date-time' },
          finished_at: { type: ['string', 'null'], format: 'date-time' },
          sessions: {
            type: 'object',
            required: ['total', 'done'],
            properties: { total: { type: 'integer' }, done: { type: 'integer' }, queued: { type: 'integer' }, running: { type: 'integer' }, by_status: { type: 'object', additionalProperties: { type: 'integer' } } },
          },
          excluded: {
            type: 'array',
            description: 'Ended sessions the results leave out of their groups (infra errors, eval errors, cancelled without a reward), with the reason.',
            items: {
              type: 'object',
              required: ['session_id', 'group_id', 'instance_id', 'sample_index', 'status', 'reason'],
              properties: {
                session_id: { type: 'integer' },
                group_id: { type: 'string' },
                instance_id: { type: 'string' },
                sample_index: { type: 'integer' },
                status: { type: 'string' },
                status_reason: { type: ['string', 'null'] },
                reason: { enum: ['infra-error', 'eval-error', 'cancelled', 'group-cut'], description: 'group-cut: ended normally, but its group lost a session to the tail cut (tail: cancel) and is not delivered.' },
              },
            },
          },
          groups: { type: 'object', properties: { total: { type: 'integer' }, completed: { type: 'integer' } } },
          target_groups: { type: 'integer', description: 'Complete groups that make the batch done for the trainer (default: every group).' },
          tail: { enum: ['wait', 'cancel', 'carry'] },
          target_reached: { type: 'boolean' },
          target_reached_at: { type: ['string', 'null'], format: 'date-time' },
          tail_counts: {
            type: 'object',
            description: 'At the target (cancel / carry; zeros otherwise): groups complete then, sessions cancelled by the tail cut, sessions carried on past it.',
            properties: { complete: { type: 'integer' }, cancelled: { type: 'integer' }, carried: { type: 'integer' } },
          },
          callback: { type: ['object', 'null'] },
        },
      },
      CallbackBody: {
        type: 'object',
        required: ['batch_id', 'group_seq', 'instance_id', 'rows'],
        properties: { batch_id: { type: 'string' }, group_seq: { type: 'integer' }, instance_id: { type: 'string' }, rows: { type: 'array', items: { type: 'object' }, description: 'polar format, prefix_merging.' } },
      },
    },
  },
  security: secured,
  paths: {
    '/openapi.json': { get: { summary: 'This document', security: [], responses: { 200: { description: 'OpenAPI 3.1', content: json({ type: 'object' }) } } } },
    '/v1/rollouts': {
      post: {
        summary: 'Submit a batch',
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } }],
        requestBody: {
          required: true,
          content: json({ $ref: '#/components/schemas/BatchRequest' }, { harness: 'pi', tasks: [{ instance_id: 'repo__name-1', repo: 'owner/name', base_commit: 'abc123', problem_statement: '…' }], samples: 2, sampling: { temperature: 1 }, policy_version: 0 }),
        },
        responses: {
          202: {
            description: 'Accepted',
            content: json(
              { type: 'object', required: ['id', 'capture'], properties: { id: { type: 'string' }, status: { type: 'string' }, created: { type: 'boolean' }, capture: { enum: ['token_in', 'chat'] } } },
              { id: 'b_3f2a9c1d0e4b5a67', status: 'queued', created: true, capture: 'token_in' },
            ),
          },
          200: { description: 'An earlier submit with this idempotency key and body made it', content: json({ type: 'object' }) },
          400: error,
          401: error,
          409: {
            description: 'conflict: the idempotency key was used with another body. capture_unavailable: an upstream cannot capture in the batch\'s mode (e.g. an SGLang without /tokenize asked for token_in); the hint names the fix.',
            content: json({ $ref: '#/components/schemas/Error' }, {
              error: {
                type: 'capture_unavailable',
                message: '"capture": "token_in" is not available: SGLang at http://127.0.0.1:30000/v1: the server has no /tokenize route (answered 404)',
                hint: 'Token-in needs SGLang\'s /tokenize rendering chat messages and /generate answering ids with logprobs (a recent SGLang, reached directly). Or send "capture": "chat".',
              },
            }),
          },
          413: error,
        },
      },
      get: { summary: 'List batches', responses: { 200: { description: 'Batches', content: json({ type: 'object', properties: { rollouts: { type: 'array', items: { $ref: '#/components/schemas/Batch' } } } }) }, 401: error } },
    },
    '/v1/rollouts/{id}': {
      get: { summary: 'Status and counts of a batch', parameters: [idParameter], responses: { 200: { description: 'The batch', content: json({ $ref: '#/components/schemas/Batch' }) }, 401: error, 404: error } },
      delete: {
        summary: 'Cancel a batch: queued sessions dropped, running ones stopped, containers removed',
        parameters: [idParameter],
        responses: { 200: { description: 'The cancelled batch', content: json({ $ref: '#/components/schemas/Batch' }) }, 401: error, 404: error },
      },
    },
    '/v1/rollouts/{id}/results': {
      get: {
        summary: 'Export rows of completed groups (JSONL), after a cursor',
        description:
          'A group is delivered once all its samples ended. Headers: Polar-Next-Cursor (pass it as cursor next time), Polar-Groups, Polar-Batch-Status. Rows are `polar export jsonl` records (schema polar-trajectory-v2; every field in the export formats reference, docs/reference/export-formats.md; polar format by default); each carries capture: token_in (every call opened its lineage or continued it as token ids), chat, or mixed (token-in was asked and some call fell back to chat with a typed reason). Sessions never graded (a batch with evaluate: false) come only with advantage=none, as reward: null and advantage: null; another estimator over them, or format=openrlhf, is refused with 400 invalid_request before any row.',
        parameters: [
          idParameter,
          { name: 'cursor', in: 'query', schema: { type: 'integer', minimum: 0, maximum: MAX_SAFE_INTEGER, default: 0 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_SAFE_INTEGER }, description: 'At most this many groups.' },
          { name: 'format', in: 'query', schema: { enum: ['polar', 'verl', 'openrlhf', 'sft', 'swebench-predictions'], default: 'polar' } },
          { name: 'builder', in: 'query', schema: { enum: ['prefix_merging', 'per_request'], default: 'prefix_merging' } },
          { name: 'advantage', in: 'query', schema: { enum: ['grpo', 'mean', 'loo', 'none'], default: 'grpo' }, description: 'none: advantage 0 for rewarded sessions, and sessions never graded are included with reward and advantage null.' },
          { name: 'std', in: 'query', schema: { enum: ['population', 'sample'] } },
          { name: 'messages', in: 'query', schema: { enum: ['true', 'false'] } },
          { name: 'min_reward', in: 'query', schema: { type: 'number' }, description: 'Any finite number.' },
          { name: 'sample', in: 'query', schema: { type: 'integer', minimum: 0, maximum: MAX_SAFE_INTEGER } },
        ],
        responses: { 200: { description: 'JSONL rows', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, 400: error, 401: error, 404: error },
      },
    },
    '/v1/events': {
      get: {
        summary: 'Server-sent events: batch, session (stage/end), group (completed), target_reached (a batch with tail cancel or carry reached target_groups), generation (pause/resume)',
        responses: { 200: { description: 'text/event-stream', content: { 'text/event-stream': { schema: { type: 'string' } } } }, 401: error },
      },
    },
    '/v1/generation/pause': {
      post: {
        summary: 'Hold new model calls, then pause the engines (keep: calls in flight frozen and continued after the resume; abort: ended) and optionally put them to sleep',
        description:
          'mode hold (default): the gateway holds new calls and the calls in flight drain (up to drain_timeout_ms); the engines are not touched. keep: every engine replica pauses with its requests frozen in place (vLLM /pause?mode=keep, SGLang /pause_generation in_place); they continue under the weights of the resume, each call recording where its version changed. abort: every replica aborts its requests (the calls end engine_aborted, their sessions infra_error). sleep 1|2: then put the engines to sleep, only once nothing is in flight (409 otherwise); not with keep (400). 409 conflict names the missing engine feature and how to enable it; 502 engine_error is the engine refusing.',
        requestBody: {
          required: false,
          content: json(
            { type: 'object', additionalProperties: false, properties: { mode: { enum: ['hold', 'keep', 'abort'], default: 'hold' }, drain_timeout_ms: { type: 'integer', minimum: 0, maximum: MAX_TIMER_MS, default: 60000 }, sleep: { enum: [1, 2] } } },
            { mode: 'keep' },
          ),
        },
        responses: {
          200: { description: 'Paused', content: json({ type: 'object' }, { paused: true, mode: 'keep', drained: false, in_flight: 2, frozen: 2, sleeping: null, policy_version: 3 }) },
          400: error,
          401: error,
          409: error,
          502: error,
        },
      },
    },
    '/v1/generation/resume': {
      post: {
        summary: 'Wake the engines, load new weights on every replica, resume them and release held calls with policy_version',
        description:
          'weights (optional, with a policy_version above the current one): disk {model_path} (SGLang /update_weights_from_disk), lora {lora_name, lora_path} (vLLM /v1/load_lora_adapter in place; calls then name the adapter as their model), reload (vLLM /collective_rpc reload_weights + /reset_prefix_cache; SGLang from its model path), pushed (the trainer pushed them; SGLang gets the version label). Every replica is paused before any update; a failed update leaves everything paused (502 engine_error).',
        requestBody: {
          required: false,
          content: json(
            {
              type: 'object',
              additionalProperties: false,
              properties: {
                policy_version: version,
                weights: {
                  type: 'object',
                  required: ['kind'],
                  properties: { kind: { enum: ['disk', 'lora', 'reload', 'pushed'] }, model_path: { type: 'string' }, lora_name: { type: 'string' }, lora_path: { type: 'string' } },
                },
              },
            },
            { policy_version: 4, weights: { kind: 'reload' } },
          ),
        },
        responses: {
          200: { description: 'Resumed', content: json({ type: 'object' }, { paused: false, policy_version: 4, weights: 'reload', version_boundaries: 2, version_unobserved: 0, upstream_model: null }) },
          400: error,
          401: error,
          409: error,
          502: error,
        },
      },
    },
    '/v1/status': {
      get: {
        summary: 'Queue depth per stage, batches, generation (pause, version, staleness), model busy fraction, engine metrics (per replica and total: running, waiting, KV usage, token rates, preemptions, effective utilisation and its ceiling), replicas, control (engine pause mode, sleep, per replica control state and features), capture (default mode, token-in tool format, per upstream whether token_in and chat capture are available), hosts (per Docker host: state, last error, slots, capacity, sessions, images, labels)',
        description:
          'capture: {default: token_in | chat (the mode of a batch that names none), tool_format: hermes | qwen3_coder | null (what token-in output is parsed with; null until known), upstreams: [{url, engine, token_in: {available, reason, hint}, chat: {available, reason, hint}}]}; available is null (engine null) until a preflight found it: the first batch that needs it preflights the upstream, once.',
        responses: {
          200: {
            description: 'Status',
            content: json({ type: 'object' }, {
              capture: {
                default: 'chat',
                tool_format: 'hermes',
                upstreams: [{ url: 'http://127.0.0.1:8000/v1', engine: 'vllm', token_in: { available: true, reason: null, hint: null }, chat: { available: true, reason: null, hint: null } }],
              },
            }),
          },
          401: error,
        },
      },
    },
  },
} as const;
