// An SGLang non-streaming chat.completion → the vLLM chat.completion shape the relays decode: the
// per-choice prompt ids move to the top level, `matched_stop` becomes `stop_reason`. Nothing is invented:
// absent ids stay absent (the call is then refused as no_token_ids).
import type { ChatCompletionWire } from '../vllm-api-types.js';
import type { SglangChatCompletionWire } from './sglang-api-types.js';

/** Contract: throws Error only for a body that is not a chat.completion with a choices array. */
export function readSglangChat(body: unknown): ChatCompletionWire {
  const answer = body as SglangChatCompletionWire | null;
  if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.choices)) {
    throw new Error('upstream chat.completion has no choices array');
  }
  const first = answer.choices[0];
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: answer.choices.map((choice) => ({
      index: choice.index,
      message: choice.message,
      logprobs: choice.logprobs ?? null,
      finish_reason: choice.finish_reason ?? null,
      // SGLang reports the matched stop (string or token id, EOS included) where vLLM reports stop_reason.
      stop_reason: typeof choice.matched_stop === 'string' || typeof choice.matched_stop === 'number' ? choice.matched_stop : null,
      token_ids: Array.isArray(choice.token_ids) ? choice.token_ids : null,
    })),
    usage: answer.usage ?? null,
    prompt_token_ids: Array.isArray(first?.prompt_token_ids) ? first.prompt_token_ids : null,
  };
}
