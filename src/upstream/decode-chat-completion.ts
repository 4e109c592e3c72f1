// A non-streaming vLLM `chat.completion` → canonical response + token capture.
import type { TokenCapture } from '../capture/call-record.js';
import type { AssistantPart, CanonicalResponse } from '../providers/canonical.js';
import { mapFinishReason } from './map-finish-reason.js';
import type { ChatCompletionWire } from './vllm-api-types.js';

export interface DecodedCompletion {
  response: CanonicalResponse;
  capture: TokenCapture;
}

/** Contract: throws `Error` only for a body that is not a chat.completion with a first choice. */
export function decodeChatCompletion(body: ChatCompletionWire): DecodedCompletion {
  const choice = body.choices?.[0];
  if (choice === undefined || typeof choice.message !== 'object' || choice.message === null) {
    throw new Error('upstream chat.completion has no choices[0].message');
  }
  const { message } = choice;
  const content: AssistantPart[] = [];
  const reasoning = message.reasoning ?? message.reasoning_content;
  if (typeof reasoning === 'string' && reasoning.length > 0) content.push({ type: 'reasoning', text: reasoning });
  if (typeof message.content === 'string' && message.content.length > 0) {
    content.push({ type: 'text', text: message.content });
  }
  for (const call of message.tool_calls ?? []) {
    content.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments });
  }
  const capture: TokenCapture = {
    promptTokenIds: body.prompt_token_ids ?? null,
    tokenIds: choice.token_ids ?? null,
    logprobs: choice.logprobs?.content ? choice.logprobs.content.map((entry) => entry.logprob) : null,
    finishReason: choice.finish_reason ?? null,
    stopReason: choice.stop_reason ?? null,
    promptTokens: body.usage?.prompt_tokens ?? null,
    completionTokens: body.usage?.completion_tokens ?? null,
  };
  const response: CanonicalResponse = {
    id: body.id,
    model: body.model,
    content,
    stopReason: mapFinishReason(choice.finish_reason),
    rawFinishReason: choice.finish_reason ?? null,
    usage: {
      inputTokens: body.usage?.prompt_tokens ?? capture.promptTokenIds?.length ?? 0,
      outputTokens: body.usage?.completion_tokens ?? capture.tokenIds?.length ?? 0,
    },
    created: body.created,
  };
  return { response, capture };
}
