// Validation of chat requests sent to the simulator, answering 400s where vLLM's request model would.
import { z } from 'zod';
import type { ToolMode } from '../model-format/format-types.js';
import { badRequest } from './sim-errors.js';

const contentPart = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image_url'), image_url: z.object({ url: z.string() }) }),
]);
const content = z.union([z.string(), z.array(contentPart)]);

const toolCall = z.object({
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({
    name: z.string(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish(),
  }),
});

const message = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: content.nullish(),
  name: z.string().optional(),
  reasoning: z.string().nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(toolCall).nullish(),
  tool_call_id: z.string().optional(),
});

const tool = z.object({
  type: z.literal('function'),
  function: z.object({
    name: z.string(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string() }) }),
]);

const positiveInt = z.number().int().min(1);

const chatRequestSchema = z.object({
  model: z.string().nullish(),
  messages: z.array(message).min(1),
  tools: z.array(tool).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_tokens: positiveInt.nullish(),
  max_completion_tokens: positiveInt.nullish(),
  n: z.number().int().nullish(),
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  top_k: z.number().int().nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z
    .object({ include_usage: z.boolean().nullish(), continuous_usage_stats: z.boolean().nullish() })
    .nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int().min(-1).nullish(),
  return_token_ids: z.boolean().nullish(),
  return_tokens_as_token_ids: z.boolean().nullish(),
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
  add_generation_prompt: z.boolean().optional(),
  skip_special_tokens: z.boolean().nullish(),
});

/**
 * A chat request as the simulator understands it: the fields of ChatCompletionRequestWire, widened
 * to what any OpenAI client may send (logprobs off, max_completion_tokens, content part arrays ...).
 * Every ChatCompletionRequestWire is a SimChatRequest.
 */
export type SimChatRequest = z.infer<typeof chatRequestSchema>;
export type SimMessage = SimChatRequest['messages'][number];
export type SimTool = NonNullable<SimChatRequest['tools']>[number];

/** vLLM's default and maximum for top_logprobs (`--max-logprobs`). */
export const MAX_LOGPROBS = 20;

/** Validates a parsed JSON body; throws a 400 SimHttpError naming the offending field. */
export function parseSimRequest(body: unknown): SimChatRequest {
  const result = chatRequestSchema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const path = issue ? issue.path.map(String).join('.') : '';
    throw badRequest(
      `1 validation error for ChatCompletionRequest\n${path || 'body'}\n  ${issue?.message ?? 'Invalid request'}`,
      path || null,
    );
  }
  const request = result.data;
  if ((request.n ?? 1) !== 1) throw badRequest('polar-sim samples one choice per request; n must be 1.', 'n');
  const top = request.top_logprobs ?? 0;
  if (top !== 0 && !request.logprobs) {
    throw badRequest('when using `top_logprobs`, `logprobs` must be set to true.', 'top_logprobs');
  }
  if (top > MAX_LOGPROBS) {
    throw badRequest(`Requested sample logprobs of ${top}, which is greater than max allowed: ${MAX_LOGPROBS}`, 'top_logprobs');
  }
  const choice = request.tool_choice;
  if (choice && choice !== 'none' && !request.tools) {
    throw badRequest('When using `tool_choice`, `tools` must be set.', 'tool_choice');
  }
  if (choice && typeof choice === 'object') {
    const names = (request.tools ?? []).map((t) => t.function.name);
    if (!names.includes(choice.function.name)) {
      throw badRequest(`Tool '${choice.function.name}' has not been passed in \`tools\`.`, 'tool_choice');
    }
  }
  return request;
}

export type { ToolMode } from '../model-format/format-types.js';

/** `auto` when tools are given and tool_choice is auto or absent; `none` without tools. */
export function toolModeOf(request: SimChatRequest): ToolMode {
  const choice = request.tool_choice;
  if (choice && typeof choice === 'object') return { kind: 'named', name: choice.function.name };
  if (choice === 'required') return { kind: 'required' };
  if (choice === 'none' || !request.tools || request.tools.length === 0) return { kind: 'none' };
  return { kind: 'auto' };
}

/** Qwen3 thinks unless chat_template_kwargs.enable_thinking is false. */
export function thinkingEnabled(request: SimChatRequest): boolean {
  return request.chat_template_kwargs?.['enable_thinking'] !== false;
}

const tokenizeSchema = z.union([
  z.object({
    model: z.string().nullish(),
    messages: z.array(message).min(1),
    tools: z.array(tool).nullish(),
    add_generation_prompt: z.boolean().optional(),
    chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
    return_token_strs: z.boolean().nullish(),
  }),
  z.object({
    model: z.string().nullish(),
    prompt: z.string(),
    add_special_tokens: z.boolean().optional(),
    return_token_strs: z.boolean().nullish(),
  }),
]);

/** vLLM's `/tokenize` body: chat messages (rendered with the template) or a plain prompt. */
export type TokenizeRequest = z.infer<typeof tokenizeSchema>;

/** Validates a `/tokenize` body; throws a 400 SimHttpError. */
export function parseTokenizeRequest(body: unknown): TokenizeRequest {
  const result = tokenizeSchema.safeParse(body);
  if (!result.success) {
    throw badRequest('1 validation error for TokenizeRequest\nbody\n  Expected { messages, tools?, add_generation_prompt? } or { prompt }');
  }
  return result.data;
}
