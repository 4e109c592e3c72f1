// vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py `schedule()`, read at 00024d31), reduced to what shapes timing:
// running requests first (one decode token each, or the next chunk of an unfinished prefill), then
// waiting ones while the token budget, max_num_seqs and free KV blocks allow; a running request that
// needs a block when none is free preempts the latest-admitted one (recompute: it loses its blocks and
// goes back to the head of the waiting queue). No new request is admitted in a step that preempted.
import type { EngineRequest } from './engine-request.js';
import { KvCache } from './kv-cache.js';
import type { BatchEntry, StepCostModel } from './step-cost.js';
import type { SchedulerCounters, StepPlan, StepScheduler } from './step-scheduler.js';

export interface ContinuousBatchingConfig {
  /** Requests running at once (vLLM max_num_seqs). */
  maxNumSeqs: number;
  /** Token budget of one step, prefill chunks included (vLLM max_num_batched_tokens). */
  maxNumBatchedTokens: number;
  /** KV cache capacity in blocks. */
  kvCacheBlocks: number;
  /** Tokens per KV block (vLLM's default 16). */
  blockSize: number;
  /** vLLM V1 default: true. */
  prefixCaching: boolean;
  cost: StepCostModel;
}

interface ScheduledEntry {
  request: EngineRequest;
  tokens: number;
}

export class ContinuousBatchingScheduler implements StepScheduler {
  readonly counters: SchedulerCounters = { preemptions: 0, prefixCacheQueries: 0, prefixCacheHits: 0 };
  readonly kv: KvCache;
  private waiting: EngineRequest[] = [];
  private running: EngineRequest[] = [];

  constructor(private readonly config: ContinuousBatchingConfig) {
    this.kv = new KvCache(config.kvCacheBlocks, config.blockSize, config.prefixCaching);
  }

  enqueue(request: EngineRequest): void {
    // vLLM refuses such a request up front (max_model_len <= KV capacity); here it would wait forever.
    const needed = Math.ceil((request.promptTokenIds.length + request.outputTokenIds.length) / this.config.blockSize);
    if (needed > this.config.kvCacheBlocks) {
      throw new Error(
        `a request of ${request.promptTokenIds.length} + ${request.outputTokenIds.length} tokens needs ${needed} KV blocks; the cache has ${this.config.kvCacheBlocks} (${this.config.kvCacheBlocks * this.config.blockSize} tokens)`,
      );
    }
    this.waiting.push(request);
  }

  release(request: EngineRequest): void {
    // A request is in one queue at most: take it out in place (an abort of every request stays linear per request).
    const list = this.running.includes(request) ? this.running : this.waiting;
    const at = list.indexOf(request);
    if (at !== -1) list.splice(at, 1);
    this.kv.release(request);
  }

  plan(admitNew: boolean): StepPlan | null {
    let budget = this.config.maxNumBatchedTokens;
    const scheduled: ScheduledEntry[] = [];
    const batch: BatchEntry[] = [];
    let preempted = false;
    for (let index = 0; index < this.running.length && budget > 0; index++) {
      const request = this.running[index] as EngineRequest;
      const tokens = Math.min(request.numTokens - request.numComputed, budget);
      if (tokens <= 0) continue;
      let fits = this.kv.allocate(request, request.numComputed, tokens);
      while (!fits) {
        const victim = this.running.pop() as EngineRequest;
        this.preempt(victim);
        preempted = true;
        if (victim === request) break;
        fits = this.kv.allocate(request, request.numComputed, tokens);
      }
      if (!fits) break;
      scheduled.push({ request, tokens });
      batch.push({ tokens, context: request.numComputed });
      budget -= tokens;
    }
    if (!preempted && admitNew) budget = this.admit(budget, scheduled, batch);
    if (scheduled.length === 0) return null;
    const scheduledTokens = this.config.maxNumBatchedTokens - budget;
    return { durationMs: this.config.cost.stepMs(batch), interruptible: false, scheduledTokens, batchSize: scheduled.length, version: 0, work: scheduled };
  }

  complete(plan: StepPlan): [EngineRequest, number][] {
    const sampled: [EngineRequest, number][] = [];
    for (const { request, tokens } of plan.work as ScheduledEntry[]) {
      if (request.status !== 'running') continue;
      request.numComputed += tokens;
      this.kv.cacheFullBlocks(request);
      if (request.numComputed >= request.numTokens) sampled.push([request, 1]);
    }
    return sampled;
  }

  interrupt(): void {
    throw new Error('a GPU step cannot be interrupted');
  }

  requests(): EngineRequest[] {
    return [...this.running, ...this.waiting];
  }

  runningCount(): number {
    return this.running.length;
  }

  waitingCount(): number {
    return this.waiting.length;
  }

  kvCacheUsage(): number {
    return this.kv.usage();
  }

  dropKvCache(): void {
    for (const request of [...this.running].reverse()) this.preempt(request, false);
    this.running = [];
    this.kv.resetPrefixCache();
  }

  resetPrefixCache(resetRunning: boolean): boolean {
    if (resetRunning) {
      for (const request of [...this.running].reverse()) this.preempt(request);
      this.running = [];
    }
    return this.kv.resetPrefixCache();
  }

  /** Admits waiting requests into this step while budget, max_num_seqs and KV blocks allow. */
  private admit(budget: number, scheduled: ScheduledEntry[], batch: BatchEntry[]): number {
    while (this.waiting.length > 0 && budget > 0 && this.running.length < this.config.maxNumSeqs) {
      const request = this.waiting[0] as EngineRequest;
      const hit = this.kv.findCachedPrefix(request);
      const tokens = Math.min(request.numTokens - hit.tokens, budget);
      if (!this.kv.allocate(request, hit.tokens, tokens, hit.blocks)) break;
      this.waiting.shift();
      this.running.push(request);
      request.status = 'running';
      request.numComputed = hit.tokens;
      if (request.preemptions === 0 && this.kv.prefixCaching) {
        this.counters.prefixCacheQueries += request.numTokens;
        this.counters.prefixCacheHits += hit.tokens;
      }
      scheduled.push({ request, tokens });
      batch.push({ tokens, context: hit.tokens });
      budget -= tokens;
    }
    return budget;
  }

  /** Recompute preemption: the request keeps its tokens, loses its KV, and waits at the head of the queue. */
  private preempt(request: EngineRequest, counted = true): void {
    this.kv.release(request);
    request.numComputed = 0;
    request.status = 'waiting';
    if (counted) {
      request.preemptions++;
      this.counters.preemptions++;
    }
    this.waiting.unshift(request);
  }
}
