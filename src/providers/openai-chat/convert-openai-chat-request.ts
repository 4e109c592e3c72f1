// An OpenAI Chat Completions request body to a CanonicalRequest (plus the one stream option
// the canonical model does not carry).
import type { CanonicalRequest, CanonicalTool, SamplingParams, ToolChoice } from '../canonical.js';
import { parseRequestBody } from '../parse-request-body.js';
import { RequestError } from '../request-error.js';
import { convertOpenAIChatMessages } from './convert-openai-chat-messages.js';
import { openAIChatRequestSchema, type OpenAIChatRequestWire } from './openai-chat-schemas.js';

export interface ConvertedChatRequest {
  request: CanonicalRequest;
  /** `stream_options.include_usage`: the client wants a final usage chunk. */
  includeUsage: boolean;
}

/** OpenAI: a function tool without `parameters` takes no arguments. */
const EMPTY_PARAMETERS: Record<string, unknown> = { type: 'object', properties: {} };

function convertTools(tools: OpenAIChatRequestWire['tools']): CanonicalTool[] {
  return (tools ?? []).map((tool, index): CanonicalTool => {
    if (tool.type !== 'function') {
      // Chat has no hosted tools; a `custom` (freeform grammar) tool needs a call format the
      // local model and upstream do not have, so refusing beats silently hiding it.
      throw new RequestError(
        `tools[${index}] has type "${tool.type}"; polar serves function tools only.`,
        `tools[${index}].type`,
      );
    }
    const { name, description, parameters } = tool.function;
    return {
      name,
      ...(description !== undefined && description !== null ? { description } : {}),
      parameters: parameters ?? EMPTY_PARAMETERS,
    };
  });
}

function convertToolChoice(choice: OpenAIChatRequestWire['tool_choice']): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function') return { name: choice.function.name };
  throw new RequestError(
    `tool_choice of type "${choice.type}" is not supported; use "auto", "none", "required" or {"type":"function",...}.`,
    'tool_choice.type',
  );
}

function defined<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}

function convertSampling(body: OpenAIChatRequestWire): SamplingParams {
  const stop = typeof body.stop === 'string' ? [body.stop] : defined(body.stop);
  const sampling: SamplingParams = {
    // `max_tokens` is deprecated in favour of `max_completion_tokens`; Pi sends the latter by default.
    maxTokens: defined(body.max_completion_tokens ?? body.max_tokens),
    temperature: defined(body.temperature),
    topP: defined(body.top_p),
    topK: defined(body.top_k),
    stop,
    seed: defined(body.seed),
    presencePenalty: defined(body.presence_penalty),
    frequencyPenalty: defined(body.frequency_penalty),
  };
  return Object.fromEntries(Object.entries(sampling).filter(([, value]) => value !== undefined));
}

/** `reasoning_effort: "none"` or `chat_template_kwargs.enable_thinking: false` turn reasoning off. */
function convertReasoning(body: OpenAIChatRequestWire): boolean | undefined {
  const enableThinking = body.chat_template_kwargs?.['enable_thinking'];
  if (typeof enableThinking === 'boolean') return enableThinking;
  if (body.reasoning_effort === undefined || body.reasoning_effort === null) return undefined;
  return body.reasoning_effort !== 'none';
}

/**
 * Validates and converts; throws RequestError naming the field for anything it cannot translate.
 * Deliberately not translated (the canonical model has no place for them; the gateway records the
 * raw body): `response_format`, `logprobs`/`top_logprobs` (polar always asks upstream for
 * logprobs), `store`, `metadata`, `user`, `service_tier`, `logit_bias`.
 */
export function convertOpenAIChatRequest(body: unknown): ConvertedChatRequest {
  const wire = parseRequestBody(openAIChatRequestSchema, body);
  if (wire.n !== undefined && wire.n !== null && wire.n !== 1) {
    throw new RequestError(`n=${wire.n} is not supported: polar samples one choice per call. Send n=1 or omit it.`, 'n');
  }
  const request: CanonicalRequest = {
    protocol: 'openai-chat',
    model: wire.model,
    messages: convertOpenAIChatMessages(wire.messages),
    tools: convertTools(wire.tools),
    sampling: convertSampling(wire),
    stream: wire.stream === true,
  };
  const toolChoice = convertToolChoice(wire.tool_choice);
  if (toolChoice !== undefined) request.toolChoice = toolChoice;
  if (wire.parallel_tool_calls !== undefined && wire.parallel_tool_calls !== null) {
    request.parallelToolCalls = wire.parallel_tool_calls;
  }
  const reasoning = convertReasoning(wire);
  if (reasoning !== undefined) request.reasoning = reasoning;
  return { request, includeUsage: wire.stream_options?.include_usage === true };
}
