// A finished simulation → SGLang's non-streaming chat.completion (serving_chat.py @ 002897c2
// _build_chat_response, plus PR #30917's per-choice ids): `reasoning_content`, content "" not null, tool
// calls with `call_<24 hex>` ids and an index, `matched_stop`, usage, `metadata.weight_version`.
import { randomUUID } from 'node:crypto';
import { TOOL_CALL_START } from '../../model-format/format-types.js';
import { parseModelOutput } from '../../model-format/parse-model-output.js';
import type { SglangChatCompletionWire } from '../../upstream/engines/sglang-api-types.js';
import type { SimulatedCompletion } from '../simulate-completion.js';

export interface SglangChatShape {
  id: string;
  created: number;
  model: string;
  /** Per-choice ids asked for and honoured (return_token_ids: both; return_prompt_token_ids: the prompt's). */
  promptIds: boolean;
  sampledIds: boolean;
  /** --tool-call-parser / --reasoning-parser set: without them the text stays in content. */
  toolParser: boolean;
  reasoningParser: boolean;
  /** The server's weight_version label when the answer is written (SGLang's metadata.weight_version). */
  weightVersion: string;
}

/** `call_` and 24 hex digits, as SGLang names tool calls. */
export function sglangToolCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/** finish_reason and matched_stop: parsed tool calls turn `stop` into `tool_calls` and clear matched. */
export function sglangFinish(sim: SimulatedCompletion, toolCalls: boolean): { finish_reason: string; matched_stop: string | number | null } {
  if (sim.finishReason === 'length') return { finish_reason: 'length', matched_stop: null };
  if (sim.finishReason === 'abort') return { finish_reason: 'abort', matched_stop: null };
  if (toolCalls) return { finish_reason: 'tool_calls', matched_stop: null };
  // A stop string, else the stop token (SGLang's FINISH_MATCHED_TOKEN names it: <|im_end|> for Qwen).
  return { finish_reason: 'stop', matched_stop: sim.stopReason ?? sim.tokenIds.at(-1) ?? null };
}

export function buildSglangChatCompletion(sim: SimulatedCompletion, shape: SglangChatShape): SglangChatCompletionWire {
  const text = sim.tokenTexts.join('');
  const toolMode = shape.toolParser ? sim.toolMode : ({ kind: 'none' } as const);
  const parsed = parseModelOutput(text, { thinking: sim.thinking, toolMode, toolFormat: sim.toolFormat, tools: sim.tools });
  // Without a reasoning parser the think block stays in content (up to the first tool call when those are parsed).
  const content = shape.reasoningParser ? (parsed.content ?? '') : parsed.toolCalls.length > 0 ? text.slice(0, Math.max(0, text.indexOf(TOOL_CALL_START))) : text;
  const toolCalls = parsed.toolCalls.map((call, index) => ({ id: sglangToolCallId(), index, type: 'function' as const, function: { name: call.name, arguments: call.arguments } }));
  const promptTokens = sim.promptTokenIds.length;
  const completionTokens = sim.tokenIds.length;
  return {
    id: shape.id,
    object: 'chat.completion',
    created: shape.created,
    model: shape.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content,
          reasoning_content: shape.reasoningParser ? parsed.reasoning : null,
          // SGLang's ChatMessage dumps tool_calls as null when there are none.
          tool_calls: (toolCalls.length > 0 ? toolCalls : null) as unknown as undefined,
        },
        logprobs: sim.logprobs ? { content: sim.logprobs } : null,
        ...sglangFinish(sim, toolCalls.length > 0),
        ...(shape.promptIds ? { prompt_token_ids: sim.promptTokenIds } : {}),
        ...(shape.sampledIds ? { token_ids: sim.tokenIds } : {}),
      },
    ],
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens + completionTokens, completion_tokens: completionTokens, prompt_tokens_details: null },
    metadata: { weight_version: shape.weightVersion },
  };
}
