// Renders canonical messages and tools as OpenAI chat JSON, for reading and SFT export.
import type {
  AssistantPart,
  CanonicalMessage,
  CanonicalResponse,
  CanonicalTool,
  ContentPart,
} from '../providers/canonical.js';

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      /** Reasoning text, under the name Qwen's chat template and vLLM use. */
      reasoning_content?: string;
      tool_calls?: ChatToolCall[];
    }
  | { role: 'tool'; tool_call_id: string; content: string; name?: string };

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** The request's messages followed by the response's assistant turn (when given). */
export function toChatMessages(
  messages: readonly CanonicalMessage[],
  response?: CanonicalResponse | null,
): ChatMessage[] {
  const rendered = messages.map(toChatMessage);
  if (response) rendered.push(toAssistantMessage(response.content));
  return rendered;
}

export function toChatTools(tools: readonly CanonicalTool[]): ChatTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.parameters,
    },
  }));
}

function toChatMessage(message: CanonicalMessage): ChatMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: toUserContent(message.content) };
    case 'assistant':
      return toAssistantMessage(message.content);
    case 'tool':
      return {
        role: 'tool',
        tool_call_id: message.toolCallId,
        content: textOf(message.content),
        ...(message.name === undefined ? {} : { name: message.name }),
      };
    default: {
      const unknown: never = message;
      return unknown;
    }
  }
}

function toUserContent(parts: readonly ContentPart[]): string | ChatContentPart[] {
  if (parts.every((part) => part.type === 'text')) return textOf(parts);
  return parts.map((part) =>
    part.type === 'text' ? { type: 'text', text: part.text } : { type: 'image_url', image_url: { url: part.url } },
  );
}

function toAssistantMessage(parts: readonly AssistantPart[]): ChatMessage {
  let text = '';
  let reasoning = '';
  const toolCalls: ChatToolCall[] = [];
  for (const part of parts) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'reasoning') reasoning += part.text;
    else toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
  }
  return {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    ...(reasoning === '' ? {} : { reasoning_content: reasoning }),
    ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
  };
}

/** Text parts joined; images are shown as a placeholder (tool results carry text in practice). */
function textOf(parts: readonly ContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? part.text : `[image: ${part.url}]`)).join('');
}
