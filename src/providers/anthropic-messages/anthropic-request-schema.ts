// zod schemas for inbound Anthropic Messages requests. Loose objects: unknown fields (metadata,
// context_management, output_config, cache_control, citations ...) pass and stay in the raw record.
import { z } from 'zod';

const optionalNumber = z.number().nullish();

/** A content block before its type is known; each type is validated by the converter. */
const anthropicBlockSchema = z.looseObject({ type: z.string() });

export const anthropicTextBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

export const anthropicImageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: z.looseObject({
    type: z.string(),
    media_type: z.string().nullish(),
    data: z.string().nullish(),
    url: z.string().nullish(),
  }),
});

export const anthropicToolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});

export const anthropicToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(anthropicBlockSchema)]).nullish(),
  is_error: z.boolean().nullish(),
});

export const anthropicThinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().nullish(),
});

export const anthropicDocumentBlockSchema = z.looseObject({
  type: z.literal('document'),
  source: z.looseObject({
    type: z.string(),
    media_type: z.string().nullish(),
    data: z.string().nullish(),
    content: z.union([z.string(), z.array(anthropicBlockSchema)]).nullish(),
  }),
  title: z.string().nullish(),
  context: z.string().nullish(),
});

export const anthropicSearchResultBlockSchema = z.looseObject({
  type: z.literal('search_result'),
  source: z.string(),
  title: z.string(),
  content: z.array(anthropicTextBlockSchema),
});

const contentSchema = z.union([z.string(), z.array(anthropicBlockSchema)]);

const anthropicMessageSchema = z.looseObject({
  /** `system` entries come from Claude Code's mid-conversation-system beta. */
  role: z.enum(['user', 'assistant', 'system']),
  content: contentSchema,
});

const anthropicToolSchema = z.looseObject({
  name: z.string(),
  /** Absent or `custom` for client tools; anything else is a server/built-in tool. */
  type: z.string().nullish(),
  description: z.string().nullish(),
  input_schema: z.record(z.string(), z.unknown()).nullish(),
});

export const anthropicMessagesRequestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().positive(),
  system: z.union([z.string(), z.array(anthropicTextBlockSchema)]).nullish(),
  messages: z.array(anthropicMessageSchema),
  tools: z.array(anthropicToolSchema).nullish(),
  tool_choice: z
    .looseObject({
      type: z.enum(['auto', 'any', 'tool', 'none']),
      name: z.string().nullish(),
      disable_parallel_tool_use: z.boolean().nullish(),
    })
    .nullish(),
  temperature: optionalNumber,
  top_p: optionalNumber,
  top_k: optionalNumber,
  stop_sequences: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  /**
   * `enabled`, `adaptive` (Claude Code) or `disabled`. Any other type is taken as "on": a newer
   * client's mode should not fail the request, and only `disabled` says "off".
   */
  thinking: z.looseObject({ type: z.string(), budget_tokens: optionalNumber }).nullish(),
});

/** `POST /v1/messages/count_tokens`: the same request without `max_tokens`. */
export const anthropicCountTokensRequestSchema = anthropicMessagesRequestSchema.extend({
  max_tokens: z.number().int().positive().nullish(),
});

export type AnthropicMessagesRequest = z.infer<typeof anthropicCountTokensRequestSchema>;
export type AnthropicWireMessage = z.infer<typeof anthropicMessageSchema>;
export type AnthropicWireBlock = z.infer<typeof anthropicBlockSchema>;
export type AnthropicWireTool = z.infer<typeof anthropicToolSchema>;
