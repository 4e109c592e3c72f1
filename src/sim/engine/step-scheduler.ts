// The contract between the engine and a scheduler: who runs in the next step, how long it takes, who samples.
import type { EngineRequest } from './engine-request.js';

/** One planned step. The engine stamps it with the weight version; the scheduler's own data rides in `work`. */
export interface StepPlan {
  /** How long the step takes (engine time, ms). */
  durationMs: number;
  /**
   * True when the step is only a wait (fixed-latency timing): a request that arrives meanwhile may cut it
   * short (`interruptStep`). A GPU step is never cut: new requests join the next one, as in vLLM.
   */
  interruptible: boolean;
  /** Tokens the model processes in this step (prefill chunks + one per decoding request). */
  scheduledTokens: number;
  /** Requests in the batch. */
  batchSize: number;
  /** Set by the engine: the weight version every token sampled by this step carries. */
  version: number;
  /** Scheduler-private. */
  work: unknown;
}

/** Counters a scheduler keeps for the metrics snapshot. */
export interface SchedulerCounters {
  preemptions: number;
  /** Prompt tokens looked up in the prefix cache / found there (requests never preempted, as vLLM counts). */
  prefixCacheQueries: number;
  prefixCacheHits: number;
}

export interface StepScheduler {
  readonly counters: SchedulerCounters;
  /** A new request joins the waiting queue. */
  enqueue(request: EngineRequest): void;
  /** The request is over (finished or aborted): drop it and free what it holds. */
  release(request: EngineRequest): void;
  /** The next step, or null when nothing can run. `admitNew` false: only requests already running (pause wait). */
  plan(admitNew: boolean): StepPlan | null;
  /** Applies a step that ran to its end; returns how many tokens each request samples now. */
  complete(plan: StepPlan): [EngineRequest, number][];
  /** Applies the first `elapsedMs` of an interruptible step (nothing is sampled). */
  interrupt(plan: StepPlan, elapsedMs: number): void;
  /** Every request the scheduler holds, running first. */
  requests(): EngineRequest[];
  runningCount(): number;
  waitingCount(): number;
  /** Fraction of KV blocks in use or holding cached prefixes (0 without a KV model). */
  kvCacheUsage(): number;
  /** Sleep: the KV cache is gone. Running requests keep their tokens and go back to waiting (recompute). */
  dropKvCache(): void;
  /** See EngineControl.resetPrefixCache. */
  resetPrefixCache(resetRunning: boolean): boolean;
}
