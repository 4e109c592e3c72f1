// SGLang's native /generate (token-in) request and answer: the body carrying a token-id prompt, and the
// answer as the chat.completion SGLang's chat endpoint would give for the same tokens (serving_chat.py
// @ 002897c2 _build_chat_response), its text parsed by model-format/ (reasoning, then tool calls).
import { randomUUID } from 'node:crypto';
import { parseModelOutput } from '../../model-format/parse-model-output.js';
import type { ParseOptions } from '../../model-format/format-types.js';
import type { ChatCompletionRequestWire, LogprobEntryWire } from '../vllm-api-types.js';
import { chatFinish } from './completion-to-chat.js';
import type { SglangChatCompletionWire, SglangGenerateRequestWire, SglangGenerateWire, SglangTokenLogprobWire } from './sglang-api-types.js';

/**
 * The /generate body for a chat body's sampling and a token-id prompt, streamed when the chat body streams.
 * SGLang's max_new_tokens defaults to 128, so without max_tokens the rest of the context is asked for, as the
 * chat endpoint does.
 */
export function generateRequest(chat: ChatCompletionRequestWire, promptIds: number[], maxModelLen: number | null | undefined): SglangGenerateRequestWire {
  const maxTokens = chat.max_tokens ?? (maxModelLen ? maxModelLen - promptIds.length : undefined);
  const { temperature, top_p, top_k, min_p, stop, presence_penalty, frequency_penalty, skip_special_tokens, seed } = chat;
  const sampling: Record<string, unknown> = { max_new_tokens: maxTokens, temperature, top_p, top_k, min_p, stop, presence_penalty, frequency_penalty, skip_special_tokens };
  // SamplingParams.sampling_seed (the chat endpoint maps `seed` to it); sent only when set, older servers lack it.
  if (seed !== undefined) sampling['sampling_seed'] = seed;
  return {
    input_ids: promptIds,
    sampling_params: sampling,
    return_logprob: true,
    logprob_start_len: -1,
    ...(chat.top_logprobs ? { top_logprobs_num: chat.top_logprobs } : {}),
    stream: chat.stream === true,
  };
}

/**
 * Token text of a logprob entry: SGLang's decoded text when it sent one (return_text_in_logprobs), else
 * the id in vLLM's `token_id:<id>` spelling (the relays only read the logprob).
 */
export function sglangLogprobEntry([logprob, id, text]: SglangTokenLogprobWire): LogprobEntryWire {
  // orjson writes -inf as null: a sampled token's logprob below float range, kept at vLLM's clamp value.
  return { token: text ?? `token_id:${id}`, logprob: logprob ?? -9999 };
}

/**
 * A /generate answer as SGLang's non-streaming chat.completion with return_token_ids (per-choice prompt and
 * sampled ids, matched_stop, reasoning_content). `promptIds` are the input_ids sent: exactly what the model
 * ran on (/generate does not echo them; meta_info.prompt_tokens counts them and the capture check compares).
 * Contract: throws Error for an answer without meta_info.
 */
export function generateToChat(answer: SglangGenerateWire, promptIds: number[], model: string, options: ParseOptions): SglangChatCompletionWire {
  const meta = typeof answer === 'object' && answer !== null ? answer.meta_info : undefined;
  if (typeof meta !== 'object' || meta === null) throw new Error('the /generate answer has no meta_info');
  const logprobs = meta.output_token_logprobs;
  const tokenIds = Array.isArray(answer.output_ids) ? answer.output_ids : Array.isArray(logprobs) ? logprobs.map((entry) => entry[1]) : null;
  const parsed = parseModelOutput(answer.text ?? '', options);
  const toolCalls = parsed.toolCalls.map((call, index) => ({
    id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    index,
    type: 'function' as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  const finish = meta.finish_reason;
  const toolFinish = chatFinish(finish?.type ?? null, parsed.toolCallsFinish);
  const matched = finish?.matched;
  return {
    id: meta.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: parsed.content ?? '', reasoning_content: parsed.reasoning, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        logprobs: Array.isArray(logprobs) ? { content: logprobs.map(sglangLogprobEntry) } : null,
        finish_reason: toolFinish,
        // SGLang clears matched when it reports parsed tool calls.
        matched_stop: toolFinish !== finish?.type || (typeof matched !== 'string' && typeof matched !== 'number') ? null : matched,
        prompt_token_ids: promptIds,
        token_ids: tokenIds,
      },
    ],
    usage: {
      prompt_tokens: meta.prompt_tokens,
      completion_tokens: meta.completion_tokens,
      total_tokens: meta.prompt_tokens + meta.completion_tokens,
      ...(meta.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: meta.cached_tokens } } : {}),
    },
    ...(meta.weight_version !== undefined ? { metadata: { weight_version: meta.weight_version } } : {}),
  };
}
