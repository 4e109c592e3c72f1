// OpenAI chat `messages` to canonical messages, one to one and in order.
import type { AssistantPart, CanonicalMessage, ContentPart } from '../canonical.js';
import { RequestError } from '../request-error.js';
import { convertImageUrl } from './convert-image-url.js';
import type { ChatMessageInWire } from './openai-chat-schemas.js';

type TextContent = string | { text: string }[];

/**
 * System and developer content is one string canonically. Text parts are joined with "\n",
 * which is what vLLM does with text-only parts (`_parse_chat_message_content_parts`), so the
 * prompt is the one the model would have seen without polar.
 */
function joinText(content: TextContent): string {
  return typeof content === 'string' ? content : content.map((part) => part.text).join('\n');
}

function toTextParts(content: TextContent): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part) => ({ type: 'text', text: part.text }));
}

function convertUserContent(
  content: Extract<ChatMessageInWire, { role: 'user' }>['content'],
  field: string,
): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, index): ContentPart => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text };
      case 'image_url':
        return convertImageUrl(part.image_url.url);
      case 'input_audio':
      case 'file':
        throw new RequestError(
          `${field}[${index}] is a "${part.type}" part; polar serves text-and-image models only. Send text or image_url parts.`,
          `${field}[${index}].type`,
        );
      default: {
        const unreachable: never = part;
        throw new RequestError(`unknown content part ${JSON.stringify(unreachable)}`, field);
      }
    }
  });
}

function convertAssistant(message: Extract<ChatMessageInWire, { role: 'assistant' }>, field: string) {
  if (message.function_call !== undefined && message.function_call !== null) {
    throw new RequestError(
      `${field}.function_call is the legacy function-calling format; replay calls as tool_calls instead.`,
      `${field}.function_call`,
    );
  }
  const parts: AssistantPart[] = [];
  // Reasoning comes first: it is what the model produced before its answer and tool calls.
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (reasoning !== undefined && reasoning !== null && reasoning !== '') {
    parts.push({ type: 'reasoning', text: reasoning });
  }
  const content = message.content;
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'text', text: content });
  } else if (content !== undefined && content !== null) {
    // A refusal is what the model said; canonically it is text.
    for (const part of content) parts.push({ type: 'text', text: part.type === 'text' ? part.text : part.refusal });
  }
  for (const call of message.tool_calls ?? []) {
    parts.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  return { role: 'assistant' as const, content: parts };
}

/** Converts every message; throws RequestError for what cannot be translated. */
export function convertOpenAIChatMessages(messages: readonly ChatMessageInWire[]): CanonicalMessage[] {
  return messages.map((message, index): CanonicalMessage => {
    const field = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        return { role: 'system', content: joinText(message.content), sourceRole: message.role };
      case 'user':
        return { role: 'user', content: convertUserContent(message.content, `${field}.content`) };
      case 'assistant':
        return convertAssistant(message, field);
      case 'tool':
        return { role: 'tool', toolCallId: message.tool_call_id, content: toTextParts(message.content) };
      case 'function':
        throw new RequestError(
          `${field} uses the legacy "function" role; send tool results as {"role":"tool","tool_call_id":...}.`,
          `${field}.role`,
        );
      default: {
        const unreachable: never = message;
        throw new RequestError(`unknown message ${JSON.stringify(unreachable)}`, field);
      }
    }
  });
}
