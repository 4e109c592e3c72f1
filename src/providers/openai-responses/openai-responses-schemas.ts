// zod schemas for inbound OpenAI Responses requests (what Codex sends). Objects are loose:
// unknown fields pass (the gateway records the raw body); only what polar translates is checked.
import { z } from 'zod';

const inputText = z.looseObject({ type: z.literal('input_text'), text: z.string() });
const inputImage = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
/** Accepted so that the converter can reject it with a precise message. */
const inputFile = z.looseObject({ type: z.literal('input_file') });
const outputText = z.looseObject({ type: z.literal('output_text'), text: z.string() });
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const messageContentPart = z.discriminatedUnion('type', [inputText, inputImage, inputFile, outputText, refusal]);
const toolOutputPart = z.discriminatedUnion('type', [inputText, inputImage, inputFile]);

/** A message item; `type` may be left out (EasyInputMessage). */
const messageItem = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: z.union([z.string(), z.array(messageContentPart)]),
});
const functionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
const functionCallOutputItem = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string(),
  output: z.union([z.string(), z.array(toolOutputPart)]),
});
const reasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  summary: z.array(z.looseObject({ type: z.literal('summary_text'), text: z.string() })).nullish(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});
/** A reference to a stored item; rejected by the converter (polar is stateless). */
const itemReference = z.looseObject({ type: z.literal('item_reference') });

const responsesInputItemSchema = z.discriminatedUnion('type', [
  messageItem,
  functionCallItem,
  functionCallOutputItem,
  reasoningItem,
  itemReference,
]);

/** A function tool; validated on its own because other tool types are skipped, not parsed. */
export const responsesFunctionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string(),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const positiveInt = z.number().int().positive().nullish();

export const openAIResponsesRequestSchema = z.looseObject({
  model: z.string(),
  input: z.union([z.string(), z.array(responsesInputItemSchema)]),
  instructions: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  conversation: z.unknown().optional(),
  prompt: z.unknown().optional(),
  background: z.boolean().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: z
    .union([z.enum(['auto', 'none', 'required']), z.looseObject({ type: z.string(), name: z.string().optional() })])
    .nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: positiveInt,
  temperature: z.number().nullish(),
  top_p: z.number().nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
  stream: z.boolean().nullish(),
});

export type OpenAIResponsesRequestWire = z.infer<typeof openAIResponsesRequestSchema>;
export type ResponsesInputItemWire = z.infer<typeof responsesInputItemSchema>;
