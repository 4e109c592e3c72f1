// The chat messages and tools of one captured call, re-parsed from the client's request bytes (for reading).
import { matchRoute } from '../gateway/match-route.js';
import { adapterFor } from '../providers/adapter-registry.js';
import { RequestError } from '../providers/request-error.js';
import type { StoredCall } from '../store/stored-call.js';
import { toChatMessages, toChatTools, type ChatMessage, type ChatTool } from './to-chat-messages.js';

export interface CallConversation {
  /** The request's messages followed by the call's own assistant turn (when it has one). */
  messages: ChatMessage[];
  /** The declared function tools; null when the request declared none. */
  tools: ChatTool[] | null;
}

/**
 * Parses the call's client request with the adapter of its protocol, exactly as the gateway did, and renders
 * it as OpenAI chat JSON. Returns null when the call was read without raw bytes or its request does not
 * parse (such a call was never answered, so it is never trainable either). Never used to build token rows.
 */
export function readCallConversation(call: StoredCall): CallConversation | null {
  if (call.raw === null) return null;
  const pathname = call.path.split('?')[0] ?? call.path;
  const route = matchRoute('POST', pathname, {});
  const context = route.kind === 'model-call' ? { pathModel: route.pathModel, pathStream: route.pathStream } : {};
  try {
    const body: unknown = JSON.parse(call.raw.clientRequest.toString('utf8'));
    const request = adapterFor(call.protocol).parseRequest(body, context);
    return {
      messages: toChatMessages(request.messages, call.response),
      tools: request.tools.length === 0 ? null : toChatTools(request.tools),
    };
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof RequestError) return null;
    throw error;
  }
}
