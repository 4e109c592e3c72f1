// The SQL shape of a `calls` row, and the column lists the repository selects.

/** Columns decoded for every read (everything but the raw-bytes blobs). */
export interface CallScalarRow {
  id: number;
  session_id: number;
  seq: number;
  protocol: string;
  path: string;
  stream: number;
  status: string;
  error: string | null;
  http_status: number;
  requested_model: string | null;
  upstream_model: string | null;
  started_at: number;
  ttfb_ms: number | null;
  latency_ms: number;
  finish_reason: string | null;
  /** JSON text: a string, a number, or NULL for null. */
  stop_reason: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** Canonical response as JSON text. */
  response: string | null;
  prompt_ids_tail: Buffer | null;
  prompt_ids_len: number | null;
  prompt_base_call_id: number | null;
  prompt_shared_len: number;
  token_ids: Buffer | null;
  token_ids_len: number | null;
  logprobs: Buffer | null;
  /** JSON objects of sampling values (NULL for calls recorded before they were stored). */
  requested_sampling: string | null;
  sent_sampling: string | null;
  response_model: string | null;
  /** token_in | chat (NULL: nothing sent, or recorded before modes were stored). */
  mode: string | null;
  fallback_reason: string | null;
  fallback_detail: string | null;
  /** The policy version the call was sampled with (NULL: recorded before versions were stored). */
  policy_version: number | null;
  /** Base URL of the replica that served the call (NULL: nothing sent, or recorded before replicas). */
  upstream_replica: string | null;
  /** vllm | sglang (NULL: nothing sent, or recorded before engines were stored). */
  engine: string | null;
  /** JSON [[token_index, version], ...] (NULL: every token has policy_version). */
  version_boundaries: string | null;
  /** Why per-token versions are unknown (NULL: known). */
  version_unobserved: string | null;
}

export const CALL_SCALAR_COLUMNS = [
  'id',
  'session_id',
  'seq',
  'protocol',
  'path',
  'stream',
  'status',
  'error',
  'http_status',
  'requested_model',
  'upstream_model',
  'started_at',
  'ttfb_ms',
  'latency_ms',
  'finish_reason',
  'stop_reason',
  'prompt_tokens',
  'completion_tokens',
  'response',
  'prompt_ids_tail',
  'prompt_ids_len',
  'prompt_base_call_id',
  'prompt_shared_len',
  'token_ids',
  'token_ids_len',
  'logprobs',
  'requested_sampling',
  'sent_sampling',
  'response_model',
  'mode',
  'fallback_reason',
  'fallback_detail',
  'policy_version',
  'upstream_replica',
  'engine',
  'version_boundaries',
  'version_unobserved',
] as const satisfies readonly (keyof CallScalarRow)[];

/** The raw-bytes fields stored as a diff against the previous call's same field. */
export type DiffedRawField = 'client_request' | 'upstream_request';

/** One diffed raw field of a row, selected under these aliases. */
export interface DiffedRawRow {
  id: number;
  blob: Buffer | null;
  base_id: number | null;
  prefix_len: number;
  suffix_len: number;
}

/** The SELECT list for one diffed raw field, aliased to DiffedRawRow. */
export function diffedRawColumns(field: DiffedRawField): string {
  return `id, ${field} AS blob, ${field}_base_call_id AS base_id, ${field}_prefix_len AS prefix_len, ${field}_suffix_len AS suffix_len`;
}

/** What a row needs for its prompt ids to be rebuilt. */
export type PromptChainRow = Pick<CallScalarRow, 'id' | 'prompt_ids_tail' | 'prompt_base_call_id' | 'prompt_shared_len' | 'token_ids'>;
