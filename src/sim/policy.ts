// The simulator's policy contract: given a chat request, decide what the model "samples" this turn.
import type { SimChatRequest } from './sim-request.js';

/** One tool call the model makes; arguments become the JSON object inside `<tool_call>`. */
export interface PolicyToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What the model answers this turn. Stateless policies derive the turn from the request. */
export type PolicyTurn =
  | {
      /** Thinking text; Qwen3 always emits a think block (empty when absent) unless thinking is off. */
      reasoning?: string;
      /** Visible text, written after the think block and before any tool calls. */
      content?: string;
      toolCalls?: PolicyToolCall[];
      /** 'stop' (default) ends with `<|im_end|>`; 'length' pretends the budget ran out (no `<|im_end|>`). */
      finish?: 'stop' | 'length';
    }
  | {
      /** Answer this HTTP status with a vLLM error body instead of a completion. */
      error: { status: number; message: string };
    };

/** Per-request facts a policy may use besides the body (e.g. a header naming the session or task). */
export interface PolicyContext {
  /** Lower-cased HTTP request headers. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The server's model name. */
  modelName: string;
}

/**
 * A policy. It receives the request as sent (any ChatCompletionRequestWire is a SimChatRequest) and
 * may answer synchronously or with a promise; a thrown error becomes a 500.
 */
export type Policy = (request: SimChatRequest, context: PolicyContext) => PolicyTurn | Promise<PolicyTurn>;

/** Number of assistant messages in the request: 0 on the first call of a conversation. */
export function countAssistantTurns(request: SimChatRequest): number {
  return request.messages.filter((m) => m.role === 'assistant').length;
}

/**
 * The acknowledgement gemini-cli and its fork Qwen Code write as the first assistant turn of every
 * conversation, after the user turn that carries the environment context (Qwen Code 0.15.10: system, user
 * context, assistant "Got it. Thanks for the context!", user prompt; reference/harness-lab.md §3).
 */
export const HARNESS_OPENING_ACKS: readonly string[] = ['Got it. Thanks for the context!'];

/** The text of a message's content (text parts joined), or its reasoning when it has no content. */
function messageText(message: SimChatRequest['messages'][number]): string {
  const content = typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
  return content !== '' ? content : (message.reasoning ?? message.reasoning_content ?? '');
}

/**
 * Assistant turns the model actually took: the assistant messages of the request, less the harness's own
 * opening acknowledgement (HARNESS_OPENING_ACKS: before any tool call, without tool calls, answered by a
 * user message). Counting every assistant message made a one-turn script's tool call never happen on Qwen
 * Code. The text is matched because a model's own text turn answered by a user follow-up looks the same.
 * Read back from token ids (token-in), the acknowledgement comes as reasoning: both fields are read.
 */
export function countModelTurns(request: SimChatRequest): number {
  const { messages } = request;
  let turns = 0;
  let calledTools = false;
  messages.forEach((message, i) => {
    if (message.role !== 'assistant') return;
    const hasCalls = (message.tool_calls ?? []).length > 0;
    const opening = !calledTools && !hasCalls && messages[i + 1]?.role === 'user' && HARNESS_OPENING_ACKS.includes(messageText(message).trim());
    if (hasCalls) calledTools = true;
    if (!opening) turns++;
  });
  return turns;
}

/** A user message that is not only tool results (Qwen's template calls its index last_query_index). */
function isRealUserQuery(message: SimChatRequest['messages'][number]): boolean {
  if (message.role !== 'user') return false;
  const text = typeof message.content === 'string' ? message.content : (message.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  return !(text.startsWith('<tool_response>') && text.endsWith('</tool_response>'));
}

/** Assistant messages after the last real user message: the step within the current user query. */
export function assistantTurnsSinceLastQuery(request: SimChatRequest): number {
  let count = 0;
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (!message || isRealUserQuery(message)) break;
    if (message.role === 'assistant') count++;
  }
  return count;
}

/** Whether a turn is an error answer. */
export function isErrorTurn(turn: PolicyTurn): turn is Extract<PolicyTurn, { error: unknown }> {
  return 'error' in turn;
}
