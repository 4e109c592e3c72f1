// A finished simulation -> vLLM's non-streaming `chat.completion` body (pydantic model_dump, nulls included).
import type { ChatCompletionWire, ChatResponseMessageWire, ChatToolCallWire } from '../upstream/vllm-api-types.js';
import { makeToolCallId } from '../model-format/model-stream-parser.js';
import { parseModelOutput } from '../model-format/parse-model-output.js';
import type { SimChatRequest } from './sim-request.js';
import type { SimulatedCompletion } from './simulate-completion.js';
import { renameReasoning, truncatedThinkingAsContent } from './apply-sim-behaviour.js';
import { DEFAULT_COMPAT, type VllmCompat } from './vllm-compat.js';

export interface ResponseIdentity {
  /** `chatcmpl-<hex>` */
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  /** False imitates vLLM < 0.10.2, which has no prompt_token_ids / token_ids fields at all. */
  serverReturnsTokenIds: boolean;
  /** Version-dependent shapes (default: the simulator's own). */
  compat?: VllmCompat;
  /** Reasoning field name(s) in responses (default: the compat version's). */
  reasoningFields?: VllmCompat['reasoningFields'];
}

/** The message fields vLLM's ChatMessage dumps besides role/content/reasoning/tool_calls. */
type VllmMessage = ChatResponseMessageWire & {
  refusal: null;
  annotations: null;
  audio: null;
  function_call: null;
};

/** ChatCompletionWire plus the always-null fields vLLM's response model carries. */
export type VllmChatCompletion = ChatCompletionWire & {
  service_tier: null;
  system_fingerprint: null;
  kv_transfer_params: null;
};

/** finish_reason as vLLM's full generator reports it. */
export function finishReasonOf(sim: SimulatedCompletion, toolCallsFinish: boolean): string {
  if (toolCallsFinish && (sim.toolMode.kind === 'auto' || sim.finishReason === 'stop')) return 'tool_calls';
  return sim.finishReason;
}

export function buildChatCompletion(sim: SimulatedCompletion, request: SimChatRequest, identity: ResponseIdentity): VllmChatCompletion {
  const compat = identity.compat ?? DEFAULT_COMPAT;
  const parsed = truncatedThinkingAsContent(sim, compat)
    ? { reasoning: null, content: sim.tokenTexts.join(''), toolCalls: [], toolCallsFinish: false }
    : parseModelOutput(sim.tokenTexts.join(''), { thinking: sim.thinking, toolMode: sim.toolMode, toolFormat: sim.toolFormat, tools: sim.tools });
  const toolCalls: ChatToolCallWire[] = parsed.toolCalls.map((call) => ({
    id: makeToolCallId(),
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
  const message: VllmMessage = {
    role: 'assistant',
    content: parsed.content,
    refusal: null,
    annotations: null,
    audio: null,
    function_call: null,
    ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
    reasoning: parsed.reasoning,
  };
  renameReasoning(message as unknown as Record<string, unknown>, identity.reasoningFields ?? compat.reasoningFields);
  const wantIds = identity.serverReturnsTokenIds;
  const choice: ChatCompletionWire['choices'][number] = {
    index: 0,
    message,
    logprobs: sim.logprobs ? { content: sim.logprobs } : null,
    finish_reason: finishReasonOf(sim, parsed.toolCallsFinish),
    stop_reason: sim.stopReason ?? null,
    ...(wantIds ? { token_ids: request.return_token_ids ? sim.tokenIds : null } : {}),
  };
  const promptTokens = sim.promptTokenIds.length;
  const completionTokens = sim.tokenIds.length;
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [choice],
    service_tier: null,
    system_fingerprint: null,
    usage: {
      prompt_tokens: promptTokens,
      total_tokens: promptTokens + completionTokens,
      completion_tokens: completionTokens,
      prompt_tokens_details: null,
    },
    prompt_logprobs: null,
    ...(wantIds ? { prompt_token_ids: request.return_token_ids ? sim.promptTokenIds : null } : {}),
    kv_transfer_params: null,
  };
}
