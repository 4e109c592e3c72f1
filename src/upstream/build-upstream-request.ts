// Canonical request → the exact OpenAI chat body polar sends to vLLM (always with token ids + logprobs).
import type { AssistantPart, CanonicalMessage, CanonicalRequest, ContentPart } from '../providers/canonical.js';
import type {
  ChatCompletionRequestWire,
  ChatContentPartWire,
  ChatMessageWire,
  ChatToolWire,
} from './vllm-api-types.js';

export interface UpstreamRequestOptions {
  /** The model name vLLM serves (`--served-model-name`). */
  model: string;
  /** Upper bound for max_tokens (clients like Claude Code ask for 32000 by default). */
  maxTokensCap?: number;
}

/**
 * Builds the upstream body. Contract: every request asks for `logprobs` and `return_token_ids`;
 * streaming requests also ask for usage so the capture can be checked against it.
 *
 * System messages are merged into one leading system message: Qwen chat templates only accept a
 * system turn first (Qwen3.5 raises otherwise), and Claude Code sends a second `role:"system"`
 * message inside `messages`. The client's raw request is stored unchanged next to this body.
 */
export function buildUpstreamRequest(
  request: CanonicalRequest,
  options: UpstreamRequestOptions,
): ChatCompletionRequestWire {
  const systemText = request.messages
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .filter((text) => text.length > 0)
    .join('\n\n');
  const messages: ChatMessageWire[] = systemText ? [{ role: 'system', content: systemText }] : [];
  for (const message of request.messages) {
    const wire = convertMessage(message);
    if (wire) messages.push(wire);
  }

  const body: ChatCompletionRequestWire = {
    model: options.model,
    messages,
    stream: request.stream,
    logprobs: true,
    return_token_ids: true,
  };
  if (request.tools.length > 0) body.tools = request.tools.map(convertTool);
  if (request.toolChoice !== undefined && request.tools.length > 0) {
    body.tool_choice =
      typeof request.toolChoice === 'string'
        ? request.toolChoice
        : { type: 'function', function: { name: request.toolChoice.name } };
  }
  if (request.parallelToolCalls !== undefined && request.tools.length > 0) {
    body.parallel_tool_calls = request.parallelToolCalls;
  }
  const maxTokens = clampMaxTokens(request.sampling.maxTokens, options.maxTokensCap);
  if (maxTokens !== undefined) body.max_tokens = maxTokens;
  const { sampling } = request;
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.topP !== undefined) body.top_p = sampling.topP;
  if (sampling.topK !== undefined) body.top_k = sampling.topK;
  if (sampling.stop !== undefined && sampling.stop.length > 0) body.stop = sampling.stop;
  if (sampling.seed !== undefined) body.seed = sampling.seed;
  if (sampling.presencePenalty !== undefined) body.presence_penalty = sampling.presencePenalty;
  if (sampling.frequencyPenalty !== undefined) body.frequency_penalty = sampling.frequencyPenalty;
  if (request.reasoning === false) body.chat_template_kwargs = { enable_thinking: false };
  if (request.stream) body.stream_options = { include_usage: true };
  return body;
}

function clampMaxTokens(requested: number | undefined, cap: number | undefined): number | undefined {
  if (cap === undefined) return requested;
  return requested === undefined ? cap : Math.min(requested, cap);
}

function convertMessage(message: CanonicalMessage): ChatMessageWire | undefined {
  switch (message.role) {
    case 'system':
      return undefined; // merged into the leading system message
    case 'user':
      return { role: 'user', content: convertContent(message.content) };
    case 'assistant':
      return convertAssistant(message.content);
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: convertContent(message.content) };
    default: {
      const unreachable: never = message;
      return unreachable;
    }
  }
}

/** A single text part stays a plain string (what the client most likely sent); otherwise parts. */
function convertContent(parts: ContentPart[]): string | ChatContentPartWire[] {
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text') return only.text;
  if (parts.length === 0) return '';
  return parts.map((part): ChatContentPartWire =>
    part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: part.url } },
  );
}

function convertAssistant(parts: AssistantPart[]): ChatMessageWire {
  let text = '';
  let reasoning = '';
  const toolCalls: NonNullable<Extract<ChatMessageWire, { role: 'assistant' }>['tool_calls']> = [];
  for (const part of parts) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  // Whitespace-only text next to tool calls is what a reasoning parser leaves between </think> and
  // <tool_call> (vLLM's qwen3 parser returns content "\n\n"); Codex and Qwen Code replay it. Sent
  // back, Qwen3's template renders it as an extra "\n" before <tool_call> that the model never
  // sampled, so the replayed turn would drift from the sampled tokens. It carries no information:
  // send no content instead (the client's raw request is stored unchanged).
  const visible = toolCalls.length > 0 && text.trim() === '' ? '' : text;
  const message: Extract<ChatMessageWire, { role: 'assistant' }> = {
    role: 'assistant',
    content: visible.length > 0 || toolCalls.length === 0 ? visible : null,
  };
  // vLLM >= 0.11 reads `reasoning` (older versions `reasoning_content`): reference/swebench-vllm.md B2.2.
  if (reasoning.length > 0) message.reasoning = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function convertTool(tool: CanonicalRequest['tools'][number]): ChatToolWire {
  const fn: ChatToolWire['function'] = { name: tool.name, parameters: tool.parameters };
  if (tool.description !== undefined) fn.description = tool.description;
  return { type: 'function', function: fn };
}
