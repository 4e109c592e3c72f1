// One Anthropic SSE frame: `event: <type>` plus the JSON payload.
import type { AnthropicErrorBody, AnthropicStreamEvent } from './anthropic-api-types.js';

export function encodeAnthropicSse(event: AnthropicStreamEvent | AnthropicErrorBody): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
