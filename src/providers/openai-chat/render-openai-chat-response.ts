// A finished canonical response as an OpenAI `chat.completion` body.
import type { CanonicalResponse, Usage } from '../canonical.js';
import { mapOpenAIChatStopReason } from './map-openai-chat-stop-reason.js';
import type {
  ChatCompletionOutWire,
  ChatResponseMessageOutWire,
  ChatToolCallOutWire,
  ChatUsageOutWire,
} from './openai-chat-api-types.js';

export function renderOpenAIChatUsage(usage: Usage): ChatUsageOutWire {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** Chat has one text field: text parts are concatenated in order, as are reasoning parts. */
function renderMessage(response: CanonicalResponse): ChatResponseMessageOutWire {
  let text = '';
  let reasoning = '';
  const toolCalls: ChatToolCallOutWire[] = [];
  for (const part of response.content) {
    switch (part.type) {
      case 'text':
        text += part.text;
        break;
      case 'reasoning':
        reasoning += part.text;
        break;
      case 'tool-call':
        toolCalls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } });
        break;
      default: {
        const unreachable: never = part;
        throw new Error(`unknown assistant part ${JSON.stringify(unreachable)}`);
      }
    }
  }
  const message: ChatResponseMessageOutWire = { role: 'assistant', content: text === '' ? null : text, refusal: null };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning !== '') {
    message.reasoning_content = reasoning;
    message.reasoning = reasoning;
  }
  return message;
}

export function renderOpenAIChatResponse(response: CanonicalResponse): ChatCompletionOutWire {
  return {
    id: response.id,
    object: 'chat.completion',
    created: response.created,
    model: response.model,
    choices: [
      {
        index: 0,
        message: renderMessage(response),
        logprobs: null,
        finish_reason: mapOpenAIChatStopReason(response.stopReason, response.rawFinishReason),
      },
    ],
    usage: renderOpenAIChatUsage(response.usage),
  };
}
