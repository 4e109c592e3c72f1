// SGLang's /v1/chat/completions in the simulator: token ids on non-streaming answers only (with
// return_token_ids since PR #30917, the prompt's alone with return_prompt_token_ids), a 400 for ids asked
// on a stream (serving_chat.py @ 002897c2 _convert_to_internal_request), streamed chunks without ids, as the
// engine emits the tokens (the vLLM route's streamChatCompletion with SGLang's wire).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GenerationHandle } from '../engine/generation-types.js';
import { adjustLogprobs, applyStopStrings } from '../apply-sim-behaviour.js';
import type { PolicyContext } from '../policy.js';
import { badRequest } from '../sim-errors.js';
import { parseSimRequest, type SimChatRequest } from '../sim-request.js';
import { headersOf, readJson, type ResolvedOptions, type SimServerStats } from '../sim-server.js';
import { clientGone, sendJson } from '../write-response.js';
import { simulateCompletion, type SimulatedCompletion } from '../simulate-completion.js';
import { DEFAULT_COMPAT } from '../vllm-compat.js';
import { buildSglangChatCompletion } from './sglang-chat-completion.js';
import { checkSglangContextWindow } from './sglang-context-window.js';
import { withSglangErrors } from './sglang-errors.js';
import { countRequest, failOrStall, SGLANG_SCHEDULER_DEAD } from '../sim-faults.js';
import { submitGeneration } from '../submit-generation.js';
import { type ChatStreamWire, streamChatCompletion } from '../stream-chat-completion.js';
import { emittedCompletion } from '../emitted-completion.js';
import { truncateCompletion } from './truncate-completion.js';

/** SGLang's chat request reads `reasoning_content` on assistant turns; a `reasoning` field is dropped by its model. */
function withoutReasoningField(request: SimChatRequest): SimChatRequest {
  return { ...request, messages: request.messages.map((message) => (message.role === 'assistant' && 'reasoning' in message ? { ...message, reasoning: undefined } : message)) };
}

export function handleSglangChat(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions, stats: SimServerStats): Promise<void> {
  return withSglangErrors(res, async () => {
    const count = countRequest(req, o, stats);
    if (count.restarted) return;
    const body = (await readJson(req)) as Record<string, unknown>;
    const parsed = parseSimRequest(body);
    const signal = clientGone(res);
    if (await failOrStall(res, o, count, parsed.stream === true, signal, SGLANG_SCHEDULER_DEAD)) return;
    const wantsIds = parsed.return_token_ids === true && o.sglang.chatTokenIds;
    const wantsPromptIds = body['return_prompt_token_ids'] === true;
    if (parsed.stream && wantsPromptIds) throw badRequest('return_prompt_token_ids is not supported with streaming. Please set stream=false when using return_prompt_token_ids=true.');
    if (parsed.stream && wantsIds) throw badRequest('return_token_ids is not supported with streaming. Please set stream=false when using return_token_ids=true.');
    const request = withoutReasoningField(parsed);
    // SGLang answers as whatever model was asked (the name picks a LoRA adapter or the base model).
    const model = typeof request.model === 'string' ? request.model : o.modelName;
    stats.inFlight++;
    try {
      const context: PolicyContext = { headers: headersOf(req), modelName: model };
      // The window is SGLang's to check (its wording): the shared simulation gets an unbounded one.
      const unbounded = await simulateCompletion(request, o.policy, { ...o, modelName: model, maxModelLen: Number.MAX_SAFE_INTEGER }, context);
      const requestedMax = request.max_completion_tokens ?? request.max_tokens;
      checkSglangContextWindow(unbounded.promptTokenIds.length, requestedMax, o.maxModelLen);
      const stopped = applyStopStrings(truncateCompletion(unbounded, o.maxModelLen - unbounded.promptTokenIds.length), request.stop);
      const sim: SimulatedCompletion = { ...stopped, logprobs: adjustLogprobs(stopped.logprobs, request, o.behaviour), ...(o.behaviour.toolCalling ? {} : { toolMode: { kind: 'none' } }) };
      const id = `chatcmpl-${randomUUID().replace(/-/g, '')}`;
      const created = Math.floor(Date.now() / 1000);
      const answerModel = o.behaviour.answerModel ?? model;
      const generation = submitGeneration(o.generation, { promptTokenIds: sim.promptTokenIds, outputTokenIds: sim.tokenIds, finishReason: sim.finishReason === 'length' ? 'length' : 'stop' }, signal);
      if (!request.stream) {
        const { tokens, finish } = await generation.next(Number.POSITIVE_INFINITY);
        if (signal.aborted) return;
        const shape = { id, created, model: answerModel, promptIds: wantsIds || wantsPromptIds, sampledIds: wantsIds, toolParser: o.behaviour.toolCalling, reasoningParser: o.sglang.reasoningParser, weightVersion: o.control.weightLabel };
        sendJson(res, 200, buildSglangChatCompletion(emittedCompletion(sim, tokens, finish ?? 'abort', request, o.behaviour), shape));
        return;
      }
      await streamChat(res, o, sim, request, { id, created, model: answerModel }, generation, signal);
    } finally {
      stats.inFlight--;
      if (signal.aborted) stats.disconnects++;
    }
  });
}

/**
 * SGLang's stream, engine-driven like vLLM's: vLLM-like chunks without any id fields (held-back chunks are
 * not sent), `reasoning_content` deltas, `matched_stop` in the finish chunk, and its own abort chunk.
 */
async function streamChat(res: ServerResponse, o: ResolvedOptions, sim: SimulatedCompletion, request: SimChatRequest, base: { id: string; created: number; model: string }, generation: GenerationHandle, signal: AbortSignal): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  // SGLang turns only a natural stop into tool_calls (an abort has its own chunk).
  const identity = { ...base, serverReturnsTokenIds: false, compat: { ...DEFAULT_COMPAT, streamedToolFinish: 'stop' as const }, reasoningFields: ['reasoning_content'] as const };
  await streamChatCompletion(res, signal, generation, { sim, request, identity, behaviour: o.behaviour, chunkTokens: o.chunkTokens, wire: sglangStreamWire(sim, base) });
}

function sglangStreamWire(sim: SimulatedCompletion, base: { id: string; created: number; model: string }): ChatStreamWire {
  const matched = sim.finishReason === 'stop' ? (sim.stopReason ?? sim.tokenIds.at(-1) ?? null) : null;
  return {
    shape: (chunk) => ({
      ...chunk,
      choices: chunk.choices.map(({ stop_reason: stopReason, ...choice }) => (stopReason === undefined ? choice : { ...choice, matched_stop: choice.finish_reason ? matched : null })),
    }),
    // The engine aborted the request (pause_generation abort): the stream ends with finish_reason "abort".
    abortChunk: () => ({ id: base.id, object: 'chat.completion.chunk', created: base.created, model: base.model, choices: [{ index: 0, delta: {}, finish_reason: 'abort', matched_stop: null }] }),
  };
}
