// Wire shapes polar sends back to OpenAI Responses clients: the Response object, its output
// items and the SSE stream events (checked against openai v6 `resources/responses/responses.d.ts`).
// Inbound request shapes are the zod schemas in openai-responses-schemas.ts.

export type ResponsesItemStatusWire = 'in_progress' | 'completed' | 'incomplete';

export interface ResponsesOutputTextWire {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface ResponsesReasoningTextWire {
  type: 'reasoning_text';
  text: string;
}

/** Codex replays this item verbatim in the next request (harness-lab §1, turn 2). */
export interface ResponsesReasoningItemWire {
  id: string;
  type: 'reasoning';
  summary: { type: 'summary_text'; text: string }[];
  content: ResponsesReasoningTextWire[];
  encrypted_content: null;
}

export interface ResponsesMessageItemWire {
  id: string;
  type: 'message';
  role: 'assistant';
  status: ResponsesItemStatusWire;
  content: ResponsesOutputTextWire[];
}

export interface ResponsesFunctionCallItemWire {
  id: string;
  type: 'function_call';
  status: ResponsesItemStatusWire;
  call_id: string;
  name: string;
  arguments: string;
}

export type ResponsesOutputItemWire =
  | ResponsesReasoningItemWire
  | ResponsesMessageItemWire
  | ResponsesFunctionCallItemWire;

export interface ResponsesUsageWire {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponsesFunctionToolOutWire {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

export type ResponsesToolChoiceWire = 'auto' | 'none' | 'required' | { type: 'function'; name: string };

/** `response.error`; `code` is what Codex branches on (`context_length_exceeded`, `rate_limit_exceeded`). */
export interface ResponsesErrorWire {
  code: string;
  message: string;
}

/** The request settings a Response echoes back. */
export interface ResponsesEchoWire {
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string> | null;
  parallel_tool_calls: boolean;
  reasoning: { effort: string | null; summary: string | null } | null;
  temperature: number | null;
  tool_choice: ResponsesToolChoiceWire;
  tools: ResponsesFunctionToolOutWire[];
  top_p: number | null;
}

export interface ResponseObjectWire extends ResponsesEchoWire {
  id: string;
  object: 'response';
  created_at: number;
  status: 'in_progress' | 'completed' | 'incomplete' | 'failed';
  error: ResponsesErrorWire | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  model: string;
  output: ResponsesOutputItemWire[];
  previous_response_id: null;
  text: { format: { type: 'text' } };
  truncation: 'disabled';
  usage?: ResponsesUsageWire;
}

interface ItemEventBase {
  item_id: string;
  output_index: number;
}

interface ContentEventBase extends ItemEventBase {
  content_index: number;
}

/** Every event; `sequence_number` is added by the encoder when the frame is written. */
export type ResponsesStreamEventWire =
  | { type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.failed'; response: ResponseObjectWire }
  | { type: 'response.output_item.added' | 'response.output_item.done'; output_index: number; item: ResponsesOutputItemWire }
  | ({ type: 'response.content_part.added' | 'response.content_part.done' } & ContentEventBase & {
      part: ResponsesOutputTextWire | ResponsesReasoningTextWire;
    })
  | ({ type: 'response.output_text.delta'; delta: string; logprobs: never[] } & ContentEventBase)
  | ({ type: 'response.output_text.done'; text: string; logprobs: never[] } & ContentEventBase)
  | ({ type: 'response.reasoning_text.delta'; delta: string } & ContentEventBase)
  | ({ type: 'response.reasoning_text.done'; text: string } & ContentEventBase)
  | ({ type: 'response.function_call_arguments.delta'; delta: string } & ItemEventBase)
  | ({ type: 'response.function_call_arguments.done'; name: string; arguments: string } & ItemEventBase);
