// Streaming vLLM `chat.completion.chunk`s → canonical stream events, assembling the token capture as
// chunks arrive (the client is streamed for real; nothing waits for the whole completion).
import type { TokenCapture } from '../capture/call-record.js';
import { parsePromptIdsJson } from '../capture/resolve-prompt-ids-json.js';
import type { AssistantPart, CanonicalResponse, StreamEvent } from '../providers/canonical.js';
import { mapFinishReason } from './map-finish-reason.js';
import type { ChatCompletionChunkWire, EngineVersionsWire } from './vllm-api-types.js';

type ToolCallPart = Extract<AssistantPart, { type: 'tool-call' }>;

/**
 * Appends in place: the arrays grow with every chunk, so copying them would be quadratic. The first
 * array is adopted, not copied (a parsed chunk is used once): the prompt's ids, all in the first
 * chunk, are never copied here.
 */
function appendAll(target: number[] | null, values: number[]): number[] {
  if (target === null) return values;
  for (const value of values) target.push(value);
  return target;
}

export class ChatStreamDecoder {
  private started = false;
  private id = '';
  private model = '';
  private created = 0;
  private promptTokenIds: number[] | null = null;
  /** The first chunk's prompt ids as JSON text, until resolvePromptIds parses them (see split-prompt-ids). */
  private deferredPromptIds: string | null = null;
  private tokenIds: number[] | null = null;
  private logprobs: number[] | null = null;
  private finishReason: string | null = null;
  private stopReason: string | number | null = null;
  private promptTokens: number | null = null;
  private completionTokens: number | null = null;
  private versions: EngineVersionsWire | null = null;
  /** Assistant parts in production order; consecutive deltas of one kind extend the last part. */
  private readonly parts: AssistantPart[] = [];
  /** The tool-call parts by upstream index; their `arguments` grow as fragments arrive. */
  private readonly toolCalls = new Map<number, ToolCallPart>();

  /** True once a chunk carried `prompt_token_ids` (vLLM sends them in the first chunk). */
  get hasPromptTokenIds(): boolean {
    return this.promptTokenIds !== null || this.deferredPromptIds !== null;
  }

  /** True while prompt ids pushed as text wait for resolvePromptIds. */
  get hasUnresolvedPromptIds(): boolean {
    return this.deferredPromptIds !== null;
  }

  /** Sampled token ids received so far. */
  get sampledCount(): number {
    return this.tokenIds?.length ?? 0;
  }

  /** True once the first chunk was pushed. */
  get hasStarted(): boolean {
    return this.started;
  }

  /**
   * Parses prompt ids pushed as text. Throws Error when they are not a JSON array (the chunk they came in
   * was malformed); they are then dropped, so the capture has none.
   */
  resolvePromptIds(): void {
    const text = this.deferredPromptIds;
    if (text === null) return;
    this.deferredPromptIds = null;
    this.promptTokenIds = appendAll(this.promptTokenIds, parsePromptIdsJson(text));
  }

  /** The weights the engine says sampled each token, when its stream said (SGLang /generate token-in). */
  get engineVersions(): EngineVersionsWire | null {
    return this.versions;
  }

  /** True once a choice reported its finish_reason. */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /**
   * `promptIds`: the chunk's prompt ids split off as JSON text (split-prompt-ids), parsed by
   * resolvePromptIds or left to the recorder (capture); the message-start event then carries no input
   * token count.
   */
  push(chunk: ChatCompletionChunkWire, promptIds?: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (chunk.prompt_token_ids) {
      this.resolveQuietly();
      this.promptTokenIds = appendAll(this.promptTokenIds, chunk.prompt_token_ids);
    }
    if (promptIds !== undefined) this.deferredPromptIds = promptIds;
    if (!this.started) {
      this.started = true;
      this.id = chunk.id;
      this.model = chunk.model;
      this.created = chunk.created;
      const start: StreamEvent = { type: 'message-start', id: chunk.id, model: chunk.model, created: chunk.created };
      if (this.promptTokenIds) start.inputTokens = this.promptTokenIds.length;
      events.push(start);
    }
    if (chunk.usage) {
      this.promptTokens = chunk.usage.prompt_tokens;
      this.completionTokens = chunk.usage.completion_tokens;
    }
    if (chunk.engine_versions) this.versions = chunk.engine_versions;
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue; // polar never asks for n > 1
      if (choice.token_ids) this.tokenIds = appendAll(this.tokenIds, choice.token_ids);
      const entries = choice.logprobs?.content;
      if (entries) {
        this.logprobs ??= [];
        for (const entry of entries) this.logprobs.push(entry.logprob);
      }
      this.decodeDelta(choice.delta ?? {}, events);
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
      if (choice.stop_reason !== undefined && choice.stop_reason !== null) this.stopReason = choice.stop_reason;
    }
    return events;
  }

  private decodeDelta(delta: ChatCompletionChunkWire['choices'][number]['delta'], events: StreamEvent[]): void {
    const reasoning = delta.reasoning ?? delta.reasoning_content;
    if (typeof reasoning === 'string' && reasoning.length > 0) {
      this.appendText('reasoning', reasoning);
      events.push({ type: 'reasoning-delta', text: reasoning });
    }
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      this.appendText('text', delta.content);
      events.push({ type: 'text-delta', text: delta.content });
    }
    for (const call of delta.tool_calls ?? []) {
      let part = this.toolCalls.get(call.index);
      if (part === undefined) {
        part = { type: 'tool-call', id: call.id ?? `call_${this.id}_${call.index}`, name: call.function?.name ?? '', arguments: '' };
        this.toolCalls.set(call.index, part);
        this.parts.push(part);
        events.push({ type: 'tool-call-start', index: call.index, id: part.id, name: part.name });
      }
      const fragment = call.function?.arguments;
      if (fragment) {
        part.arguments += fragment;
        events.push({ type: 'tool-call-delta', index: call.index, argumentsDelta: fragment });
      }
    }
  }

  private appendText(kind: 'text' | 'reasoning', text: string): void {
    const last = this.parts.at(-1);
    if (last && last.type === kind) last.text += text;
    else this.parts.push(kind === 'text' ? { type: 'text', text } : { type: 'reasoning', text });
  }

  /**
   * The capture assembled so far (complete after the stream ended). Prompt ids pushed as text and not
   * resolved come as `promptTokenIdsJson`, for the recorder to parse.
   */
  capture(): TokenCapture {
    return {
      promptTokenIds: this.promptTokenIds,
      ...(this.deferredPromptIds === null ? {} : { promptTokenIdsJson: this.deferredPromptIds }),
      tokenIds: this.tokenIds,
      logprobs: this.logprobs,
      finishReason: this.finishReason,
      stopReason: this.stopReason,
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens,
    };
  }

  /** The assistant turn assembled so far. */
  response(): CanonicalResponse {
    const content = this.parts.map((part): AssistantPart => ({ ...part }));
    return {
      id: this.id,
      model: this.model,
      content,
      stopReason: mapFinishReason(this.finishReason),
      rawFinishReason: this.finishReason,
      usage: this.usage(),
      created: this.created,
    };
  }

  /** The closing event, emitted by the gateway after the capture is committed. */
  endEvent(): StreamEvent {
    return { type: 'message-end', stopReason: mapFinishReason(this.finishReason), rawFinishReason: this.finishReason, usage: this.usage() };
  }

  /** resolvePromptIds before ids of a later chunk are appended: malformed deferred ids are dropped. */
  private resolveQuietly(): void {
    try {
      this.resolvePromptIds();
    } catch {
      // Dropped: the capture then has no prompt ids and is not trusted.
    }
  }

  private usage(): CanonicalResponse['usage'] {
    return {
      inputTokens: this.promptTokens ?? this.promptTokenIds?.length ?? 0,
      outputTokens: this.completionTokens ?? this.tokenIds?.length ?? 0,
    };
  }
}
