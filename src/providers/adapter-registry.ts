// The protocol adapters by wire protocol (a static registry: four built-in protocols).
import { anthropicMessagesAdapter } from './anthropic-messages/anthropic-messages-adapter.js';
import type { Protocol } from './canonical.js';
import { googleGenAIAdapter } from './google-genai/google-genai-adapter.js';
import { openAIChatAdapter } from './openai-chat/openai-chat-adapter.js';
import { openAIResponsesAdapter } from './openai-responses/openai-responses-adapter.js';
import type { ProtocolAdapter } from './protocol-adapter.js';

const ADAPTERS: Record<Protocol, ProtocolAdapter> = {
  'openai-chat': openAIChatAdapter,
  'openai-responses': openAIResponsesAdapter,
  'anthropic-messages': anthropicMessagesAdapter,
  'google-genai': googleGenAIAdapter,
};

export function adapterFor(protocol: Protocol): ProtocolAdapter {
  return ADAPTERS[protocol];
}
