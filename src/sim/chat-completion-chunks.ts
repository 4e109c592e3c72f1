// A finished simulation -> the `chat.completion.chunk` sequence vLLM streams for it (role, deltas, finish, usage).
import type { ChatCompletionChunkWire, UsageWire } from '../upstream/vllm-api-types.js';
import type { ResponseIdentity } from './build-chat-completion.js';
import { ModelStreamParser } from '../model-format/model-stream-parser.js';
import type { SimChatRequest } from './sim-request.js';
import type { SimulatedCompletion } from './simulate-completion.js';
import { renameReasoning } from './apply-sim-behaviour.js';
import { DEFAULT_COMPAT } from './vllm-compat.js';

export interface PlannedChunk {
  chunk: ChatCompletionChunkWire;
  /** Sampled tokens this chunk carries (0 for the role and usage chunks): the server paces by it. */
  tokens: number;
}

function usage(prompt: number, completion: number): UsageWire {
  return { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion };
}

/**
 * The chunks in order. Deltas follow vLLM (>= PR #29074): a chunk whose text the parsers hold back
 * still goes out with an empty delta when token_ids or logprobs were requested, so the streamed
 * token_ids and logprobs add up to the non-streaming ones. `serverReturnsTokenIds: false` imitates
 * vLLM < 0.10.2: no token id fields, and held-back chunks are dropped.
 */
export function* chatCompletionChunks(
  sim: SimulatedCompletion,
  request: SimChatRequest,
  identity: ResponseIdentity,
  chunkTokens: number,
): Generator<PlannedChunk> {
  const base = { id: identity.id, object: 'chat.completion.chunk' as const, created: identity.created, model: identity.model };
  const wantIds = identity.serverReturnsTokenIds;
  const idsRequested = request.return_token_ids === true;
  const options = request.stream_options;
  const includeUsage = options ? (options.include_usage ?? true) : false;
  const continuousUsage = includeUsage && (options?.continuous_usage_stats ?? false);
  const promptTokens = sim.promptTokenIds.length;

  const first: ChatCompletionChunkWire = {
    ...base,
    choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    ...(wantIds ? { prompt_token_ids: idsRequested ? sim.promptTokenIds : null } : {}),
    ...(continuousUsage ? { usage: usage(promptTokens, 0) } : {}),
  };
  yield { chunk: first, tokens: 0 };

  const parser = new ModelStreamParser({ thinking: sim.thinking, toolMode: sim.toolMode, toolFormat: sim.toolFormat, tools: sim.tools });
  const total = sim.tokenIds.length;
  const step = Math.max(1, Math.floor(chunkTokens));
  const compat = identity.compat ?? DEFAULT_COMPAT;
  const reasoningFields = identity.reasoningFields ?? compat.reasoningFields;
  // vLLM 0.10.2 to ~0.12 (compat.dropHeldBackChunks) skip held-back chunks even when ids were requested.
  const keepHeldBack = wantIds && !compat.dropHeldBackChunks ? idsRequested || sim.logprobs !== null : false;
  for (let start = 0; start < total || (total === 0 && start === 0); start += step) {
    const end = Math.min(total, start + step);
    const last = end >= total;
    const delta = parser.push(sim.tokenTexts.slice(start, end).join(''), last);
    if (delta === null && !last && !keepHeldBack) continue;
    const logprobs = sim.logprobs ? { content: sim.logprobs.slice(start, end) } : null;
    const tokenIds = wantIds ? { token_ids: idsRequested ? sim.tokenIds.slice(start, end) : null } : {};
    const finish = last
      ? {
          finish_reason:
            parser.toolsStreamed && (sim.toolMode.kind !== 'named' || compat.namedToolFinish === 'tool_calls') && sim.finishReason === 'stop'
              ? 'tool_calls'
              : sim.finishReason,
          stop_reason: sim.stopReason ?? null,
        }
      : { finish_reason: null };
    const shaped: Record<string, unknown> = { ...(delta ?? {}) };
    renameReasoning(shaped, reasoningFields);
    yield {
      chunk: {
        ...base,
        choices: [{ index: 0, delta: shaped, logprobs, ...finish, ...tokenIds }],
        ...(continuousUsage ? { usage: usage(promptTokens, end) } : {}),
      },
      tokens: end - start,
    };
    if (total === 0) break;
  }

  if (includeUsage) yield { chunk: { ...base, choices: [], usage: usage(promptTokens, total) }, tokens: 0 };
}
