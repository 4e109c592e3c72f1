// The simulator's timing without a GPU profile: every request on its own clock, independent of the others.
// Its first token comes firstTokenMs after it is admitted, then one every perTokenMs (all at once when
// perTokenMs is 0). A "step" is the wait until the next token falls due; an arrival may cut it short.
import type { EngineRequest } from './engine-request.js';
import type { SchedulerCounters, StepPlan, StepScheduler } from './step-scheduler.js';

export interface FixedLatency {
  firstTokenMs: number;
  perTokenMs: number;
}

/** Clock error tolerated when deciding that a token is due. */
const EPSILON_MS = 1e-6;

export class FixedLatencyScheduler implements StepScheduler {
  readonly counters: SchedulerCounters = { preemptions: 0, prefixCacheQueries: 0, prefixCacheHits: 0 };
  private waiting: EngineRequest[] = [];
  private running: EngineRequest[] = [];

  constructor(private readonly latency: FixedLatency) {}

  enqueue(request: EngineRequest): void {
    this.waiting.push(request);
  }

  release(request: EngineRequest): void {
    this.running = this.running.filter((r) => r !== request);
    this.waiting = this.waiting.filter((r) => r !== request);
  }

  plan(admitNew: boolean): StepPlan | null {
    if (admitNew) {
      for (const request of this.waiting) {
        request.status = 'running';
        request.dueInMs = this.latency.firstTokenMs;
        this.running.push(request);
      }
      this.waiting = [];
    }
    if (this.running.length === 0) return null;
    let durationMs = Number.POSITIVE_INFINITY;
    for (const request of this.running) durationMs = Math.min(durationMs, Math.max(0, request.dueInMs));
    return { durationMs, interruptible: true, scheduledTokens: 0, batchSize: this.running.length, version: 0, work: null };
  }

  complete(plan: StepPlan): [EngineRequest, number][] {
    const due: [EngineRequest, number][] = [];
    for (const request of this.running) {
      request.dueInMs -= plan.durationMs;
      if (request.dueInMs > EPSILON_MS) continue;
      due.push([request, this.latency.perTokenMs > 0 ? 1 : request.remainingTokens]);
      request.dueInMs = this.latency.perTokenMs;
    }
    return due;
  }

  interrupt(_plan: StepPlan, elapsedMs: number): void {
    for (const request of this.running) request.dueInMs = Math.max(0, request.dueInMs - elapsedMs);
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
    return 0;
  }

  dropKvCache(): void {
    // No KV model: requests keep their clocks.
  }

  /** As vLLM: refused (false) while running requests hold cache blocks (a keep pause's frozen ones too), unless they are reset. */
  resetPrefixCache(resetRunning: boolean): boolean {
    return resetRunning || this.running.length === 0;
  }
}
