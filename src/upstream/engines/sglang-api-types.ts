// Wire shapes of SGLang's server (the fields polar reads and sends), read from sgl-project/sglang:
// serving_chat.py @ 002897c2 (chat answer), PR #30917 (merged 2026-07-12: `return_token_ids` on chat,
// non-streaming only), http_server.py @ 0025436e (/generate, /get_model_info, /get_server_info, /v1/models),
// schedule_batch.py FINISH_* classes (finish_reason objects), sgl-router server.rs @ 8dac1b72 (/list_workers).
import type { ChatResponseMessageWire, LogprobEntryWire, UsageWire } from '../vllm-api-types.js';

/** One choice of a non-streaming SGLang `chat.completion`. */
export interface SglangChatChoiceWire {
  index: number;
  /** SGLang names thinking `reasoning_content` (never `reasoning`); content is "" rather than null. */
  message: ChatResponseMessageWire;
  logprobs: { content: LogprobEntryWire[] | null } | null;
  finish_reason: string | null;
  /** The matched stop string or stop-token id (EOS included), null for length or parsed tool calls. */
  matched_stop?: string | number | null;
  /** With `return_token_ids` (or `return_prompt_token_ids`): per choice, not top level as in vLLM. */
  prompt_token_ids?: number[] | null;
  /** With `return_token_ids` (PR #30917): the raw sampled ids, before reasoning / tool-call parsing. */
  token_ids?: number[] | null;
}

export interface SglangChatCompletionWire {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: SglangChatChoiceWire[];
  usage: UsageWire | null;
  /** `{weight_version}` in newer SGLang. */
  metadata?: { weight_version?: string | null } | null;
}

/** `finish_reason` of /generate's meta_info (FINISH_MATCHED_TOKEN / _STR / FINISH_LENGTH / FINISH_ABORT .to_json()). */
export interface SglangFinishReasonWire {
  type: 'stop' | 'length' | 'abort' | string;
  matched?: string | number | number[] | null;
  length?: number;
  message?: string;
}

/** One `[logprob, token_id, text | null]` entry of meta_info.output_token_logprobs. */
export type SglangTokenLogprobWire = [logprob: number | null, tokenId: number, text: string | null];

/** `POST /generate` (io_struct.py GenerateReqInput): the fields polar sends in token-in mode. */
export interface SglangGenerateRequestWire {
  input_ids: number[];
  sampling_params: Record<string, unknown>;
  return_logprob: true;
  /** -1: logprobs of the output tokens only (no prompt logprobs, which would bypass the prefix cache). */
  logprob_start_len: -1;
  top_logprobs_num?: number;
  /** True when the client streams: SSE `data: {...}` chunks ending `data: [DONE]` (sglang-stream-reader.ts). */
  stream: boolean;
}

/** One span of SGLang's `meta_info.weight_versions` (newer releases, utils/weight_versions.py): tokens [start, end). */
export interface SglangWeightVersionSpanWire {
  version: string;
  start: number;
  end: number;
}

/**
 * The non-streaming /generate answer, and one chunk of a streamed one. A chunk's `text`, `output_ids` and
 * `output_token_logprobs` are cumulative or incremental depending on the release and its flags
 * (sglang-stream-reader.ts); `completion_tokens` is always the running total. An abort before prefill has
 * neither ids nor logprobs (tokenizer_manager.py _handle_abort_req).
 */
export interface SglangGenerateWire {
  text?: string | null;
  /** The sampled ids (the stop token included). */
  output_ids?: number[];
  meta_info: {
    id: string;
    finish_reason: SglangFinishReasonWire | null;
    prompt_tokens: number;
    completion_tokens: number;
    cached_tokens?: number;
    /** The server's label when the answer was written (server_args.weight_version at output time). */
    weight_version?: string | null;
    /** Newer releases, on the finished answer: which label's weights sampled which output tokens. */
    weight_versions?: SglangWeightVersionSpanWire[] | null;
    output_token_logprobs?: SglangTokenLogprobWire[];
    output_top_logprobs?: (SglangTokenLogprobWire[] | null)[];
  };
}

/** `GET /get_model_info`. */
export interface SglangModelInfoWire {
  model_path: string;
  tokenizer_path?: string | null;
  is_generation?: boolean;
  weight_version?: string | null;
}

/** `GET /get_server_info`: ServerArgs flattened, scheduler info, `version` (the fields polar reads). */
export interface SglangServerInfoWire {
  version?: string;
  model_path?: string;
  served_model_name?: string | null;
  context_length?: number | null;
  tool_call_parser?: string | null;
  reasoning_parser?: string | null;
  max_total_num_tokens?: number;
  max_req_input_len?: number;
  weight_version?: string | null;
  /** Tokens between streamed outputs of a request (default 1). */
  stream_interval?: number;
  /** Streamed /generate chunks carry only what is new (newer releases; default false). */
  incremental_streaming_output?: boolean;
  /** Its older name (`--stream-output`); at 0025436e streamed output_ids were incremental whatever it said. */
  stream_output?: boolean;
}

/** sgl-router: `GET /workers` (newer) or `GET /list_workers` (`{urls}`, older). */
export interface SglangWorkersWire {
  workers?: { url: string; is_healthy?: boolean; model_id?: string | null }[];
  urls?: string[];
}
