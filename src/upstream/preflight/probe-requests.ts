// The fixed probe conversations the preflight sends: one with a tool (fingerprint, token ids, tool calling,
// reasoning field, streaming ids) and one plain prompt for the logprob-mode probe.
import type { ChatMessageWire, ChatToolWire } from '../vllm-api-types.js';

/** Never change these: the template fingerprint is the sha256 of their prompt token ids. */
export const PROBE_TOOLS: ChatToolWire[] = [
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'Returns the current time in a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];

export const PROBE_TOOL_MESSAGES: ChatMessageWire[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'What time is it in Paris? Use the get_time tool.' },
];

const LOGPROB_MESSAGES: ChatMessageWire[] = [{ role: 'user', content: 'Write one random English word.' }];

const PROBE_SEED = 1234;

/** Non-streaming probe with the tool (tool_choice auto). */
export function toolProbeBody(model: string, withTools: boolean, stream: boolean, maxTokens: number): Record<string, unknown> {
  return {
    model,
    messages: PROBE_TOOL_MESSAGES,
    ...(withTools ? { tools: PROBE_TOOLS, tool_choice: 'auto' } : {}),
    max_tokens: maxTokens,
    temperature: 1,
    top_p: 1,
    top_k: -1,
    seed: PROBE_SEED,
    logprobs: true,
    return_token_ids: true,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  };
}

/**
 * Two of these that differ only in temperature tell raw from processed logprobs; two that differ only in
 * top_p tell logprobs scaled by temperature alone (SGLang) from fully processed ones.
 */
export function logprobProbeBody(model: string, temperature: number, topP = 1): Record<string, unknown> {
  return {
    model,
    messages: LOGPROB_MESSAGES,
    max_tokens: 8,
    temperature,
    top_p: topP,
    top_k: -1,
    seed: PROBE_SEED,
    logprobs: true,
    top_logprobs: 5,
    return_token_ids: true,
    chat_template_kwargs: { enable_thinking: false },
    stream: false,
  };
}

/** End-of-turn texts of common chat templates; the ones that are one token in the served vocabulary count. */
export const END_OF_TURN_TEXTS = ['<|im_end|>', '<|eot_id|>', '<end_of_turn>', '<|end|>', '<|endoftext|>'];
