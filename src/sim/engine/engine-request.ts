// One request inside the engine: its tokens so far, its scheduling state, and the waiter of its handle.
import type { EmittedToken, GenerationFinish, GenerationRequest, TokenBatch } from './generation-types.js';

export type RequestStatus = 'waiting' | 'running' | 'finished';

export class EngineRequest {
  readonly promptTokenIds: readonly number[];
  readonly outputTokenIds: readonly number[];
  readonly plannedFinish: 'stop' | 'length';
  readonly emitted: EmittedToken[] = [];
  status: RequestStatus = 'waiting';
  finish: GenerationFinish | null = null;
  /** Tokens whose KV is computed (prompt, then sampled tokens); 0 again after a preemption. */
  numComputed = 0;
  /** KV block ids, in token order (continuous-batching scheduler). */
  blocks: number[] = [];
  /** Chained hashes of this request's full token blocks, computed as they are needed. */
  readonly blockHashes: number[] = [];
  /** How many of `blocks` are registered in the prefix cache. */
  numCachedBlocks = 0;
  /** Times this request lost its blocks to make room (it then recomputes them). */
  preemptions = 0;
  /** Fixed-latency scheduler: time left until this request's next token. */
  dueInMs = 0;
  /** Whether vllm:prompt_tokens has counted this request (at its first token, as vLLM does). */
  promptCounted = false;
  private cursor = 0;
  private waiter: { need: number; resolve: (batch: TokenBatch) => void } | null = null;

  constructor(
    readonly id: string,
    request: GenerationRequest,
  ) {
    this.promptTokenIds = request.promptTokenIds;
    this.outputTokenIds = request.outputTokenIds;
    this.plannedFinish = request.finishReason ?? 'stop';
  }

  /** Prompt plus sampled tokens so far: what the model has to have seen before it samples the next one. */
  get numTokens(): number {
    return this.promptTokenIds.length + this.emitted.length;
  }

  /** Token `index` of prompt + sampled output. */
  tokenAt(index: number): number {
    const prompt = this.promptTokenIds.length;
    return index < prompt ? (this.promptTokenIds[index] as number) : (this.emitted[index - prompt] as EmittedToken).id;
  }

  get remainingTokens(): number {
    return this.outputTokenIds.length - this.emitted.length;
  }

  /** Appends up to `count` planned tokens sampled with `version`; returns how many were appended. */
  emit(count: number, version: number): number {
    const take = Math.min(count, this.remainingTokens);
    for (let i = 0; i < take; i++) this.emitted.push({ id: this.outputTokenIds[this.emitted.length] as number, version });
    return take;
  }

  end(finish: GenerationFinish): void {
    this.status = 'finished';
    this.finish = finish;
  }

  /** The handle's `next(n)`; see GenerationHandle. */
  next(n: number): Promise<TokenBatch> {
    if (this.waiter) throw new Error(`generation ${this.id}: next() called while a previous next() is pending`);
    const need = this.cursor + Math.max(0, n);
    if (this.emitted.length >= need || this.finish !== null) return Promise.resolve(this.take(need));
    return new Promise((resolve) => {
      this.waiter = { need, resolve };
    });
  }

  /** Wakes the handle's waiter when its tokens are out or the request has ended. */
  notify(): void {
    const waiter = this.waiter;
    if (!waiter || (this.emitted.length < waiter.need && this.finish === null)) return;
    this.waiter = null;
    waiter.resolve(this.take(waiter.need));
  }

  private take(need: number): TokenBatch {
    const end = Math.min(need, this.emitted.length);
    const batch = { tokens: this.emitted.slice(this.cursor, end), offset: this.cursor, finish: end >= this.emitted.length ? this.finish : null };
    this.cursor = end;
    return batch;
  }
}
