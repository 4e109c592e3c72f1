// A simulation -> the `chat.completion.chunk` sequence vLLM streams for it (role, deltas, finish, usage).
// ChatChunkBuilder makes the chunks one token range at a time, as the engine emits the tokens
// (stream-chat-completion.ts drives it for both the vLLM and the SGLang route).
import type { ChatCompletionChunkWire, LogprobEntryWire, UsageWire } from '../upstream/vllm-api-types.js';
import type { ResponseIdentity } from './build-chat-completion.js';
import { ModelStreamParser } from '../model-format/model-stream-parser.js';
import type { SimChatRequest } from './sim-request.js';
import type { SimulatedCompletion } from './simulate-completion.js';
import { renameReasoning } from './apply-sim-behaviour.js';
import { DEFAULT_COMPAT, type VllmCompat } from './vllm-compat.js';

function usage(prompt: number, completion: number): UsageWire {
  return { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion };
}

/** One range of sampled tokens: their ids, the text each adds, and their logprob entries (when asked for). */
export interface TokenRange {
  ids: readonly number[];
  texts: readonly string[];
  logprobs: LogprobEntryWire[] | null;
}

/**
 * The chunks of one streamed answer. Deltas follow vLLM (>= PR #29074): a range whose text the parsers
 * hold back still goes out with an empty delta when token_ids or logprobs were requested, so the streamed
 * token_ids and logprobs add up to the non-streaming ones. `serverReturnsTokenIds: false` imitates
 * vLLM < 0.10.2: no token id fields, and held-back chunks are dropped.
 */
export class ChatChunkBuilder {
  private readonly base: { id: string; object: 'chat.completion.chunk'; created: number; model: string };
  private readonly parser: ModelStreamParser;
  private readonly compat: VllmCompat;
  private readonly wantIds: boolean;
  private readonly idsRequested: boolean;
  private readonly includeUsage: boolean;
  private readonly continuousUsage: boolean;
  private readonly keepHeldBack: boolean;
  private completion = 0;

  constructor(
    private readonly sim: SimulatedCompletion,
    request: SimChatRequest,
    private readonly identity: ResponseIdentity,
  ) {
    this.base = { id: identity.id, object: 'chat.completion.chunk', created: identity.created, model: identity.model };
    this.wantIds = identity.serverReturnsTokenIds;
    this.idsRequested = request.return_token_ids === true;
    const options = request.stream_options;
    this.includeUsage = options ? (options.include_usage ?? true) : false;
    this.continuousUsage = this.includeUsage && (options?.continuous_usage_stats ?? false);
    this.parser = new ModelStreamParser({ thinking: sim.thinking, toolMode: sim.toolMode, toolFormat: sim.toolFormat, tools: sim.tools });
    this.compat = identity.compat ?? DEFAULT_COMPAT;
    // vLLM 0.10.2 to ~0.12 (compat.dropHeldBackChunks) skip held-back chunks even when ids were requested.
    this.keepHeldBack = this.wantIds && !this.compat.dropHeldBackChunks ? this.idsRequested || sim.logprobs !== null : false;
  }

  /** The first chunk: the assistant role (and the prompt ids). */
  role(): ChatCompletionChunkWire {
    const prompt = this.sim.promptTokenIds;
    return {
      ...this.base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      ...(this.wantIds ? { prompt_token_ids: this.idsRequested ? prompt : null } : {}),
      ...(this.continuousUsage ? { usage: usage(prompt.length, 0) } : {}),
    };
  }

  /**
   * The chunk for the next range of tokens, or null when the parsers hold its text back and nothing
   * else must go out. `finishReason` set: this is the last range (it may be empty).
   */
  tokens(range: TokenRange, finishReason: SimulatedCompletion['finishReason'] | null): ChatCompletionChunkWire | null {
    const last = finishReason !== null;
    const delta = this.parser.push(range.texts.join(''), last);
    this.completion += range.ids.length;
    if (delta === null && !last && !this.keepHeldBack) return null;
    const sim = this.sim;
    const logprobs = sim.logprobs ? { content: range.logprobs ?? [] } : null;
    const tokenIds = this.wantIds ? { token_ids: this.idsRequested ? [...range.ids] : null } : {};
    const named = sim.toolMode.kind === 'named';
    // vLLM: once tool-call pieces went out (auto/required), the finish is tool_calls, an abort's or a cut's too (A6).
    const toolsFinish = this.parser.toolsStreamed && (!named || this.compat.namedToolFinish === 'tool_calls') && (finishReason === 'stop' || this.compat.streamedToolFinish === 'any');
    const finish = last
      ? {
          finish_reason: toolsFinish ? 'tool_calls' : finishReason,
          stop_reason: finishReason === 'abort' ? null : (sim.stopReason ?? null),
        }
      : { finish_reason: null };
    const shaped: Record<string, unknown> = { ...(delta ?? {}) };
    renameReasoning(shaped, this.identity.reasoningFields ?? this.compat.reasoningFields);
    return {
      ...this.base,
      choices: [{ index: 0, delta: shaped, logprobs, ...finish, ...tokenIds }],
      ...(this.continuousUsage ? { usage: usage(sim.promptTokenIds.length, this.completion) } : {}),
    };
  }

  /** The closing usage chunk (stream_options.include_usage), or null. */
  usage(): ChatCompletionChunkWire | null {
    return this.includeUsage ? { ...this.base, choices: [], usage: usage(this.sim.promptTokenIds.length, this.completion) } : null;
  }
}
