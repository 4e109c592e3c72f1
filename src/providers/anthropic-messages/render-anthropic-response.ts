// A complete canonical response as an Anthropic Messages JSON body (non-streaming).
import type { AssistantPart, CanonicalRequest, CanonicalResponse, Usage } from '../canonical.js';
import { parseToolArguments } from '../tool-arguments.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicUsage } from './anthropic-api-types.js';
import { createThinkingSignature } from './create-thinking-signature.js';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.js';
import { toAnthropicMessageId } from './to-anthropic-message-id.js';

/**
 * `model` echoes the name the client asked for (Claude Code keys context window and pricing on
 * it); the upstream model is in the capture. Empty text and reasoning parts carry nothing and are
 * not rendered (the stream encoder does the same).
 */
export function renderAnthropicResponse(response: CanonicalResponse, request: CanonicalRequest): AnthropicMessage {
  const hasToolCalls = response.content.some((part) => part.type === 'tool-call');
  return {
    id: toAnthropicMessageId(response.id),
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: response.content.flatMap(renderBlock),
    stop_reason: mapAnthropicStopReason(response.stopReason, hasToolCalls),
    stop_sequence: null,
    usage: renderAnthropicUsage(response.usage),
  };
}

export function renderAnthropicUsage(usage: Usage): AnthropicUsage {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

function renderBlock(part: AssistantPart): AnthropicContentBlock[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'reasoning':
      if (part.text === '') return [];
      return [{ type: 'thinking', thinking: part.text, signature: signatureFor(part.text, part.signature) }];
    case 'tool-call':
      // Arguments that are not a JSON object are wrapped, never repaired (see tool-arguments.ts).
      return [{ type: 'tool_use', id: part.id, name: part.name, input: parseToolArguments(part.arguments) }];
    default:
      return assertNever(part);
  }
}

/** A replayed signature is kept; a missing or empty one is derived (Claude Code needs one). */
function signatureFor(text: string, signature: string | undefined): string {
  return signature === undefined || signature === '' ? createThinkingSignature(text) : signature;
}

function assertNever(value: never): never {
  throw new Error(`unexpected assistant part ${JSON.stringify(value)}`);
}
