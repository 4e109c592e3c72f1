// Wire shapes of vLLM's OpenAI-compatible chat server (>= 0.10.2), the upstream polar speaks.
// The only place in upstream/ where snake_case field names appear.

export interface ChatToolCallWire {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatContentPartWire =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

export type ChatMessageWire =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPartWire[] }
  | {
      role: 'assistant';
      content: string | null;
      /** vLLM >= ~0.12 reads `reasoning`; polar sends the field name the preflight detected. */
      reasoning?: string;
      reasoning_content?: string;
      tool_calls?: ChatToolCallWire[];
    }
  | { role: 'tool'; tool_call_id: string; content: string | ChatContentPartWire[] };

export interface ChatToolWire {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** The request polar sends upstream. */
export interface ChatCompletionRequestWire {
  model: string;
  messages: ChatMessageWire[];
  tools?: ChatToolWire[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: boolean;
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  top_k?: number;
  min_p?: number;
  stop?: string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  stream: boolean;
  stream_options?: { include_usage: boolean; continuous_usage_stats?: boolean };
  /** Always true: one logprob per sampled token. */
  logprobs: true;
  top_logprobs?: number;
  /** Always true (vLLM >= 0.10.2): prompt_token_ids + token_ids in the response. */
  return_token_ids: true;
  chat_template_kwargs?: Record<string, unknown>;
  skip_special_tokens?: boolean;
}

export interface LogprobEntryWire {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: { token: string; logprob: number; bytes?: number[] | null }[];
}

export interface UsageWire {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

export interface ChatResponseMessageWire {
  role: 'assistant';
  content: string | null;
  reasoning?: string | null;
  reasoning_content?: string | null;
  tool_calls?: ChatToolCallWire[];
}

/** Non-streaming `chat.completion`. */
export interface ChatCompletionWire {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: ChatResponseMessageWire;
    logprobs: { content: LogprobEntryWire[] | null } | null;
    finish_reason: string | null;
    stop_reason: string | number | null;
    token_ids?: number[] | null;
  }[];
  usage: UsageWire | null;
  prompt_logprobs?: unknown;
  prompt_token_ids?: number[] | null;
}

export interface ChatToolCallDeltaWire {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

/** Streaming `chat.completion.chunk`. */
export interface ChatCompletionChunkWire {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      reasoning?: string | null;
      reasoning_content?: string | null;
      tool_calls?: ChatToolCallDeltaWire[];
    };
    logprobs?: { content: LogprobEntryWire[] | null } | null;
    finish_reason?: string | null;
    stop_reason?: string | number | null;
    /** Per-chunk delta of sampled ids (return_token_ids). */
    token_ids?: number[] | null;
  }[];
  usage?: UsageWire | null;
  /** Only in the first chunk (return_token_ids). */
  prompt_token_ids?: number[] | null;
  /** polar's own, never vLLM's: on the last chunk of a token-in stream that reports them (SGLang /generate). */
  engine_versions?: EngineVersionsWire | null;
}

/**
 * The weights the engine says sampled each token, as runs: from `start` on, its weight_version `label` (polar's
 * policy version when polar wrote the label, else null). `exact`: the engine's scheduler recorded the token
 * count at each change (SGLang's meta_info.weight_versions); otherwise each chunk's label at output time.
 */
export interface EngineVersionsWire {
  runs: { start: number; label: string; version: number | null }[];
  exact: boolean;
}

/** vLLM's error body (`ErrorResponse`). */
export interface ErrorResponseWire {
  error?: { message: string; type: string; param?: string | null; code: number | string };
  // vLLM < 0.10 answered `{object:"error", message, type, code}` at top level.
  object?: 'error';
  message?: string;
  type?: string;
  code?: number;
}

export interface ModelListWire {
  object: 'list';
  data: { id: string; object: 'model'; created: number; owned_by: string; max_model_len?: number; root?: string }[];
}
