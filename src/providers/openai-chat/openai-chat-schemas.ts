// zod schemas for inbound OpenAI Chat Completions requests. Objects are loose: unknown fields
// pass (the gateway records the raw body); only what polar translates is checked.
import { z } from 'zod';

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const imageUrlPart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string(), detail: z.string().nullish() }),
});
/** Accepted by the schema so that the converter can reject them with a precise message. */
const audioPart = z.looseObject({ type: z.literal('input_audio') });
const filePart = z.looseObject({ type: z.literal('file') });
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const userPart = z.discriminatedUnion('type', [textPart, imageUrlPart, audioPart, filePart]);
const assistantPart = z.discriminatedUnion('type', [textPart, refusalPart]);

const textContent = z.union([z.string(), z.array(textPart)]);

const toolCall = z.looseObject({
  id: z.string(),
  type: z.literal('function').optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const systemMessage = z.looseObject({ role: z.literal('system'), content: textContent });
const developerMessage = z.looseObject({ role: z.literal('developer'), content: textContent });
const userMessage = z.looseObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(userPart)]),
});
const assistantMessage = z.looseObject({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(assistantPart)]).nullish(),
  tool_calls: z.array(toolCall).nullish(),
  /** Replayed reasoning: Qwen Code sends `reasoning_content`; Pi echoes whichever name it got. */
  reasoning_content: z.string().nullish(),
  reasoning: z.string().nullish(),
  /** Legacy; rejected by the converter. */
  function_call: z.unknown().optional(),
});
const toolMessage = z.looseObject({
  role: z.literal('tool'),
  tool_call_id: z.string(),
  content: textContent,
});
/** Legacy `function` role; rejected by the converter with a hint. */
const functionMessage = z.looseObject({ role: z.literal('function') });

const chatMessageSchema = z.discriminatedUnion('role', [
  systemMessage,
  developerMessage,
  userMessage,
  assistantMessage,
  toolMessage,
  functionMessage,
]);

const functionTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string(),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});
/** Freeform-grammar tools; rejected by the converter (no local equivalent). */
const customTool = z.looseObject({ type: z.literal('custom') });

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
    z.looseObject({ type: z.literal('allowed_tools') }),
    z.looseObject({ type: z.literal('custom') }),
  ]),
]);

const positiveInt = z.number().int().positive().nullish();
const number = z.number().nullish();

export const openAIChatRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(chatMessageSchema).min(1),
  tools: z.array(z.discriminatedUnion('type', [functionTool, customTool])).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_completion_tokens: positiveInt,
  max_tokens: positiveInt,
  temperature: number,
  top_p: number,
  /** vLLM extension. */
  top_k: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  seed: z.number().int().nullish(),
  presence_penalty: number,
  frequency_penalty: number,
  n: z.number().int().nullish(),
  reasoning_effort: z.string().nullish(),
  /** vLLM extension; `enable_thinking` is how Qwen-family templates switch reasoning on or off. */
  chat_template_kwargs: z.record(z.string(), z.unknown()).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
});

export type OpenAIChatRequestWire = z.infer<typeof openAIChatRequestSchema>;
export type ChatMessageInWire = z.infer<typeof chatMessageSchema>;
