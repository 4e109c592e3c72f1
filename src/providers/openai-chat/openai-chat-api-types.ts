// Wire shapes polar sends back to OpenAI Chat Completions clients (the only snake_case place here).
// Inbound request shapes are the zod schemas in openai-chat-schemas.ts.

/** `{error: {...}}`, the error body of every OpenAI API (also used by the Responses adapter). */
export interface OpenAIErrorBodyWire {
  error: {
    message: string;
    /** `invalid_request_error`, `server_error`, `rate_limit_error`, ... */
    type: string;
    param: string | null;
    code: string | null;
  };
}

export interface ChatToolCallOutWire {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatUsageOutWire {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * An OpenAI finish_reason. The usual values are `stop | length | tool_calls | content_filter`;
 * an upstream value polar does not know is passed through unchanged (see map-openai-chat-stop-reason.ts).
 */
export type ChatFinishReasonWire = string;

export interface ChatResponseMessageOutWire {
  role: 'assistant';
  content: string | null;
  refusal: null;
  tool_calls?: ChatToolCallOutWire[];
  /** Both names are sent: vLLM >= 0.11 and Pi read `reasoning`, Qwen Code `reasoning_content`. */
  reasoning_content?: string;
  reasoning?: string;
}

/** Non-streaming `chat.completion`. */
export interface ChatCompletionOutWire {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: 0;
    message: ChatResponseMessageOutWire;
    logprobs: null;
    finish_reason: ChatFinishReasonWire;
  }[];
  usage: ChatUsageOutWire;
}

export interface ChatToolCallDeltaOutWire {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface ChatDeltaOutWire {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: ChatToolCallDeltaOutWire[];
}

/** One streamed `chat.completion.chunk`. The usage chunk has `choices: []`. */
export interface ChatCompletionChunkOutWire {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: 0;
    delta: ChatDeltaOutWire;
    logprobs: null;
    finish_reason: ChatFinishReasonWire | null;
  }[];
  usage?: ChatUsageOutWire;
}
