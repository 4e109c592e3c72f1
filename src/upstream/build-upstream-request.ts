// Canonical request → the exact OpenAI chat body polar sends to vLLM (always with token ids + logprobs).
import type { CallSamplingValues } from '../capture/call-record.js';
import type { SamplingPolicy } from '../config/sampling-policy.js';
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
  /**
   * The run's sampling. `run` mode replaces the client's temperature/top_p/top_k/min_p/seed with the
   * policy's; `harness` mode (and no policy) passes the client's values, with any value the policy
   * does set still forced. `maxTokens` is a cap in both modes.
   */
  sampling?: SamplingPolicy;
  /** Field name for replayed thinking (`reasoning` on vLLM >= ~0.12, `reasoning_content` before). Default `reasoning`. */
  reasoningField?: 'reasoning' | 'reasoning_content';
}

/** The sampling values of one call: what the client asked for, and what polar sent upstream. */
export type SamplingValues = CallSamplingValues;

/**
 * Builds the upstream body. Contract: every request asks for `logprobs` and `return_token_ids`;
 * streaming requests also ask for usage so the capture can be checked against it.
 *
 * The system messages before the first turn are merged into one leading system message: Qwen chat
 * templates only accept a system turn first (Qwen3.5 raises otherwise). A system message inside the
 * conversation (Claude Code sends `role:"system"` reminders after tool results, and keeps them there in
 * later calls) becomes a user turn in place: merging it into the leading system prompt would rewrite
 * the start of a context the model already conditioned on, splitting the row (and token-in lineages).
 * The client's raw request is stored unchanged next to this body.
 */
export function buildUpstreamRequest(
  request: CanonicalRequest,
  options: UpstreamRequestOptions,
): ChatCompletionRequestWire {
  const leading = request.messages.findIndex((message) => message.role !== 'system');
  const leadingSystem = leading === -1 ? request.messages : request.messages.slice(0, leading);
  const systemText = leadingSystem
    .map((message) => (message.role === 'system' ? message.content : ''))
    .filter((text) => text.length > 0)
    .join('\n\n');
  const messages: ChatMessageWire[] = systemText ? [{ role: 'system', content: systemText }] : [];
  for (const message of request.messages.slice(leadingSystem.length)) {
    const wire = convertMessage(message, options.reasoningField ?? 'reasoning');
    if (wire) messages.push(wire);
  }

  const body: Omit<ChatCompletionRequestWire, 'stream'> = {
    model: options.model,
    messages,
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
  const sent = sentSampling(request, options);
  if (sent.max_tokens !== undefined) body.max_tokens = sent.max_tokens;
  if (sent.temperature !== undefined) body.temperature = sent.temperature;
  if (sent.top_p !== undefined) body.top_p = sent.top_p;
  if (sent.top_k !== undefined) body.top_k = sent.top_k;
  if (sent.min_p !== undefined) body.min_p = sent.min_p;
  if (sent.seed !== undefined) body.seed = sent.seed;
  const { sampling } = request;
  if (sampling.stop !== undefined && sampling.stop.length > 0) body.stop = sampling.stop;
  // Penalties reshape the distribution: a run-owned policy never lets the client's through.
  if (options.sampling?.mode !== 'run') {
    if (sampling.presencePenalty !== undefined) body.presence_penalty = sampling.presencePenalty;
    if (sampling.frequencyPenalty !== undefined) body.frequency_penalty = sampling.frequencyPenalty;
  }
  // The run's `thinking` wins over the harness's: a hybrid model trained without thinking is asked so on every call.
  if ((options.sampling?.thinking ?? request.reasoning) === false) body.chat_template_kwargs = { enable_thinking: false };
  // Last and together: a streaming and a non-streaming call of one conversation then differ only at the end, so
  // the store's byte delta of one against the other stays small.
  return { ...body, stream: request.stream, ...(request.stream ? { stream_options: { include_usage: true } } : {}) };
}

/** The client's own sampling values (as parsed from its request), in upstream names. */
export function requestedSampling(request: CanonicalRequest): SamplingValues {
  const { sampling } = request;
  return dropUndefined({
    temperature: sampling.temperature,
    top_p: sampling.topP,
    top_k: sampling.topK,
    max_tokens: sampling.maxTokens,
    seed: sampling.seed,
  });
}

/** The values polar sends upstream for this request under `options.sampling` (see UpstreamRequestOptions). */
export function sentSampling(request: CanonicalRequest, options: Pick<UpstreamRequestOptions, 'sampling' | 'maxTokensCap'>): SamplingValues {
  const policy = options.sampling;
  const client = request.sampling;
  const runOwned = policy?.mode === 'run';
  const pick = <T>(forced: T | undefined, own: T | undefined): T | undefined => (forced !== undefined ? forced : runOwned ? undefined : own);
  let maxTokens = clampMaxTokens(client.maxTokens, options.maxTokensCap);
  maxTokens = clampMaxTokens(maxTokens, policy?.maxTokens);
  return dropUndefined({
    temperature: pick(policy?.temperature, client.temperature),
    top_p: pick(policy?.topP, client.topP),
    top_k: pick(policy?.topK, client.topK),
    min_p: pick(policy?.minP, undefined),
    max_tokens: maxTokens,
    seed: pick(policy?.seed, client.seed),
  });
}

function dropUndefined(values: SamplingValues): SamplingValues {
  const out: SamplingValues = {};
  for (const [key, value] of Object.entries(values) as [keyof SamplingValues, number | undefined][]) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function clampMaxTokens(requested: number | undefined, cap: number | undefined): number | undefined {
  if (cap === undefined) return requested;
  return requested === undefined ? cap : Math.min(requested, cap);
}

function convertMessage(message: CanonicalMessage, reasoningField: 'reasoning' | 'reasoning_content'): ChatMessageWire | undefined {
  switch (message.role) {
    case 'system':
      return { role: 'user', content: message.content }; // inside the conversation (leading ones are merged)
    case 'user':
      return { role: 'user', content: convertContent(message.content) };
    case 'assistant':
      return convertAssistant(message.content, reasoningField);
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

function convertAssistant(parts: AssistantPart[], reasoningField: 'reasoning' | 'reasoning_content'): ChatMessageWire {
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
  // vLLM reads `reasoning` since ~0.12 (#28531); 0.10.2-0.11 drop either field (vllm-conformance.md A3).
  // The preflight detects which name the server answers with; the gateway replays under that name.
  if (reasoning.length > 0) message[reasoningField] = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}

function convertTool(tool: CanonicalRequest['tools'][number]): ChatToolWire {
  const fn: ChatToolWire['function'] = { name: tool.name, parameters: tool.parameters };
  if (tool.description !== undefined) fn.description = tool.description;
  return { type: 'function', function: fn };
}
