// One simulated generation: render the prompt, check the context window, ask the policy, sample tokens + logprobs.
import type { ToolFormat } from '../model-format/format-types.js';
import type { LogprobEntryWire } from '../upstream/vllm-api-types.js';
import { isErrorTurn, type Policy, type PolicyContext, type PolicyTurn } from './policy.js';
import { createIncrementalDecoder, QWEN_TOKEN_IDS, tokenText } from './qwen-tokenizer.js';
import { renderQwenPrompt } from './render-qwen-prompt.js';
import { renderSampledText } from './render-sampled-text.js';
import type { DriftKnobs } from './sim-drift.js';
import { SimHttpError, badRequest } from './sim-errors.js';
import { thinkingEnabled, toolModeOf, type SimChatRequest, type ToolMode } from './sim-request.js';
import { alternativeLogprobs, sampledLogprob } from './synthetic-logprobs.js';

/** Which vLLM generation's context-overflow wording to answer with (`new`: VLLMValidationError, ~0.16+). */
export type ContextErrorStyle = 'v0.11' | 'legacy' | 'new';

export interface SimulateOptions {
  modelName: string;
  maxModelLen: number;
  contextErrorStyle: ContextErrorStyle;
  /** How the model writes tool calls (default hermes). */
  toolFormat?: ToolFormat;
  /** How the sampled text departs from the template's re-rendering (default none). */
  drift?: DriftKnobs;
}

export interface SimulatedCompletion {
  promptTokenIds: number[];
  /** Sampled ids, ending in `<|im_end|>` (151645) when finishReason is 'stop'. */
  tokenIds: number[];
  /** Text each token adds to the output ('' for the final EOS and for incomplete UTF-8 held back). */
  tokenTexts: string[];
  /** One entry per sampled token when the request asked for logprobs, else null. */
  logprobs: LogprobEntryWire[] | null;
  /** 'abort': the engine ended the request early (pause abort, sleep); tokens are those sampled until then. */
  finishReason: 'stop' | 'length' | 'abort';
  /** vLLM's stop_reason: the matched stop string (or stop token id); null/absent for EOS. */
  stopReason?: string | number | null;
  thinking: boolean;
  toolMode: ToolMode;
  toolFormat: ToolFormat;
  /** The request's tools (qwen3_coder types parameter values by them). */
  tools: SimChatRequest['tools'];
}

const utf8 = new TextEncoder();

function bytesOf(text: string): number[] {
  return [...utf8.encode(text)];
}

function tokenLabel(id: number, asIds: boolean): string {
  return asIds ? `token_id:${id}` : tokenText(id);
}

/**
 * vLLM's logprobs.content entries for the sampled ids, the first at output position `offset`;
 * `versions[i]` is the weight version token i was sampled with (default 0 for all).
 */
export function logprobEntries(ids: readonly number[], topK: number, asIds: boolean, versions?: readonly number[], offset = 0): LogprobEntryWire[] {
  return ids.map((id, index) => {
    const position = offset + index;
    const version = versions?.[index] ?? 0;
    const token = tokenLabel(id, asIds);
    const logprob = sampledLogprob(position, id, version);
    const bytes = bytesOf(token);
    const top =
      topK > 0
        ? [
            { token, logprob, bytes },
            ...alternativeLogprobs(position, id, topK - 1, version).map((alt) => {
              const altToken = tokenLabel(alt.id, asIds);
              return { token: altToken, logprob: alt.logprob, bytes: bytesOf(altToken) };
            }),
          ]
        : [];
    return { token, logprob, bytes, top_logprobs: top };
  });
}

/** The 400 vLLM answers when the prompt (plus max_tokens) does not fit the context window. */
export function checkContextWindow(
  promptTokens: number,
  maxTokens: number | null | undefined,
  maxModelLen: number,
  style: ContextErrorStyle,
): void {
  if (style === 'legacy') {
    const requested = promptTokens + (maxTokens ?? 0);
    if (maxTokens === null || maxTokens === undefined) {
      if (promptTokens >= maxModelLen) {
        throw badRequest(
          `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${promptTokens} tokens in the messages, Please reduce the length of the messages.`,
        );
      }
    } else if (requested > maxModelLen) {
      throw badRequest(
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${requested} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
      );
    }
    return;
  }
  if (style === 'new') {
    // vLLM renderers/params.py VLLMValidationError, answered with param "input_tokens".
    const requested = maxTokens ?? 0;
    if (promptTokens >= maxModelLen || promptTokens + requested > maxModelLen) {
      throw badRequest(
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ${requested} output tokens and your prompt contains ${promptTokens >= maxModelLen ? 'at least ' : ''}${promptTokens} input tokens, for a total of ${promptTokens + requested} tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=${promptTokens})`,
        'input_tokens',
      );
    }
    return;
  }
  // vLLM 0.11-0.15: ValueError from _validate_input, answered as f"{e} {e.__cause__}" (hence " None").
  if (promptTokens >= maxModelLen) {
    throw badRequest(
      `This model's maximum context length is ${maxModelLen} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages. None`,
    );
  }
  if (maxTokens !== null && maxTokens !== undefined && promptTokens + maxTokens > maxModelLen) {
    throw badRequest(
      `'max_tokens' or 'max_completion_tokens' is too large: ${maxTokens}. This model's maximum context length is ${maxModelLen} tokens and your request has ${promptTokens} input tokens (${maxTokens} > ${maxModelLen} - ${promptTokens}). None`,
    );
  }
}

/** vLLM's `_check_model`: an unknown model name is a 404. */
export function checkModel(requested: string | null | undefined, modelName: string): void {
  if (requested !== null && requested !== undefined && requested !== modelName) {
    throw new SimHttpError(404, `The model \`${requested}\` does not exist.`, 'NotFoundError', 'model');
  }
}

/** Runs one request through prompt rendering, the policy and sampling; throws SimHttpError for error answers. */
export async function simulateCompletion(
  request: SimChatRequest,
  policy: Policy,
  options: SimulateOptions,
  context: PolicyContext,
): Promise<SimulatedCompletion> {
  checkModel(request.model, options.modelName);
  const thinking = thinkingEnabled(request);
  const toolMode = toolModeOf(request);
  const prompt = renderQwenPrompt({
    messages: request.messages,
    tools: request.tools,
    chatTemplateKwargs: request.chat_template_kwargs,
    addGenerationPrompt: request.add_generation_prompt ?? true,
    toolFormat: options.toolFormat,
  });
  const requestedMax = request.max_completion_tokens ?? request.max_tokens;
  checkContextWindow(prompt.tokenIds.length, requestedMax, options.maxModelLen, options.contextErrorStyle);
  const budget = Math.min(requestedMax ?? Number.POSITIVE_INFINITY, options.maxModelLen - prompt.tokenIds.length);

  let turn: PolicyTurn;
  try {
    turn = await policy(request, context);
  } catch (error) {
    throw new SimHttpError(500, `The simulator policy failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (isErrorTurn(turn)) throw new SimHttpError(turn.error.status, turn.error.message);

  const toolFormat = options.toolFormat ?? 'hermes';
  const sampled = renderSampledText(turn, { thinking, toolMode, toolFormat, drift: options.drift, driftKey: prompt.text });
  const truncated = sampled.tokenIds.length > budget;
  const tokenIds = truncated ? sampled.tokenIds.slice(0, budget) : sampled.tokenIds;
  const finishReason = truncated ? 'length' : sampled.finish;
  const decoder = createIncrementalDecoder();
  const tokenTexts = tokenIds.map((id, i) => {
    const isStopToken = finishReason === 'stop' && i === tokenIds.length - 1 && id === QWEN_TOKEN_IDS.imEnd;
    const text = decoder.push(id);
    return isStopToken ? '' : text;
  });
  const logprobs = request.logprobs
    ? logprobEntries(tokenIds, request.top_logprobs ?? 0, request.return_tokens_as_token_ids ?? false)
    : null;
  return { promptTokenIds: prompt.tokenIds, tokenIds, tokenTexts, logprobs, finishReason, thinking, toolMode, toolFormat, tools: request.tools };
}
