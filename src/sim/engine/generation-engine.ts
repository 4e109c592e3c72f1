// The step-driven generation core: requests in, tokens out, one step at a time. It owns request
// bookkeeping, weight versions and the engine-control semantics (pause, sleep, weight updates); a
// StepScheduler decides who runs and how long a step takes. It has no clock and no timers: a driver
// calls nextStep(), lets the step's duration pass (really or virtually), then calls completeStep().
import { seededRandom } from '../seeded-random.js';
import { EngineRequest } from './engine-request.js';
import type { EngineCapacity, EngineMetricsSnapshot } from './engine-metrics.js';
import type { EngineControl, GenerationFinish, GenerationRequest, PauseMode, PauseOptions, WeightUpdate } from './generation-types.js';
import type { StepPlan, StepScheduler } from './step-scheduler.js';

export interface GenerationEngineOptions {
  /** Relative spread of GPU step durations (uniform ±stepJitter; default 0), drawn from `seed`. */
  stepJitter?: number;
  seed?: number;
  capacity?: EngineCapacity;
}

const NO_CAPACITY: EngineCapacity = { profile: null, ceilingTokensPerSecond: null, kvCacheTokens: null, maxNumSeqs: null, maxNumBatchedTokens: null };

type PauseState = 'running' | 'paused-new' | 'paused-all';

export class GenerationEngine implements EngineControl {
  private readonly requests = new Map<string, EngineRequest>();
  private nextId = 0;
  private inFlight: StepPlan | null = null;
  private pauseState: PauseState = 'running';
  private sleepLevel: 0 | 1 | 2 = 0;
  /** Sleep with mode 'wait' drains like a pause 'wait' without being one. */
  private draining = false;
  private weightVersion = 0;
  private waiters: { ready: () => boolean; resolve: () => void }[] = [];
  private readonly random: () => number;
  private readonly stepJitter: number;
  private readonly capacity: EngineCapacity;
  private readonly totals = { promptTokens: 0, generationTokens: 0, steps: 0, busyMs: 0, processedTokens: 0, arrivedWhileAsleep: 0 };
  private readonly finished: Record<GenerationFinish, number> = { stop: 0, length: 0, abort: 0 };

  constructor(
    private readonly scheduler: StepScheduler,
    options: GenerationEngineOptions = {},
  ) {
    this.random = seededRandom(options.seed ?? 0);
    this.stepJitter = options.stepJitter ?? 0;
    this.capacity = options.capacity ?? NO_CAPACITY;
  }

  /** Queues a request; its tokens come out of later steps. Throws when it could never fit the KV cache. */
  add(request: GenerationRequest): EngineRequest {
    const entry = new EngineRequest(`gen-${++this.nextId}`, request);
    this.scheduler.enqueue(entry);
    if (this.sleepLevel > 0) this.totals.arrivedWhileAsleep++;
    this.requests.set(entry.id, entry);
    return entry;
  }

  /** Ends one request now with finish 'abort' (the client went away). */
  abort(id: string): void {
    const request = this.requests.get(id);
    if (!request) return;
    this.end(request, 'abort');
    this.settleWaiters();
  }

  /** True while a step is planned and not yet completed. */
  get stepInFlight(): boolean {
    return this.inFlight !== null;
  }

  /** Plans the next step, or null when nothing can run (idle, paused, asleep). */
  nextStep(): StepPlan | null {
    if (this.inFlight) throw new Error('nextStep() while a step is in flight: complete or interrupt it first');
    if (this.sleepLevel > 0 || (this.pauseState === 'paused-all' && !this.draining)) return null;
    const plan = this.scheduler.plan(this.pauseState === 'running' && !this.draining);
    if (!plan) return null;
    plan.version = this.weightVersion;
    if (this.stepJitter > 0 && !plan.interruptible) plan.durationMs *= 1 + this.stepJitter * (2 * this.random() - 1);
    this.inFlight = plan;
    return plan;
  }

  /** The step's duration has passed: its tokens come out. */
  completeStep(plan: StepPlan): void {
    this.checkInFlight(plan);
    this.inFlight = null;
    this.totals.steps++;
    this.totals.busyMs += plan.durationMs;
    this.totals.processedTokens += plan.scheduledTokens;
    for (const [request, count] of this.scheduler.complete(plan)) {
      if (request.status !== 'running') continue;
      const took = request.emit(count, plan.version);
      this.totals.generationTokens += took;
      if (!request.promptCounted) {
        request.promptCounted = true;
        this.totals.promptTokens += request.promptTokenIds.length;
      }
      if (request.remainingTokens === 0) this.end(request, request.plannedFinish);
      else request.notify();
    }
    this.settleWaiters();
  }

  /** Only `elapsedMs` of an interruptible step passed (a request arrived); nothing is sampled. */
  interruptStep(plan: StepPlan, elapsedMs: number): void {
    this.checkInFlight(plan);
    this.inFlight = null;
    const elapsed = Math.min(Math.max(0, elapsedMs), plan.durationMs);
    this.totals.busyMs += elapsed;
    this.scheduler.interrupt(plan, elapsed);
    this.settleWaiters();
  }

  async pause(mode: PauseMode, options: PauseOptions = {}): Promise<void> {
    if (mode === 'abort') this.abortAll();
    if (mode === 'wait') {
      // From 'keep' too: the frozen requests now run to their end.
      this.pauseState = 'paused-new';
      await this.when(() => this.inFlight === null && this.scheduler.runningCount() === 0);
    } else {
      this.pauseState = 'paused-all';
      await this.when(() => this.inFlight === null);
    }
    if (options.clearCache) this.scheduler.resetPrefixCache(false);
  }

  resume(): void {
    this.pauseState = 'running';
  }

  isPaused(): boolean {
    return this.pauseState !== 'running';
  }

  async updateWeights(update: WeightUpdate): Promise<void> {
    if (update.abortRequests) this.abortAll();
    this.weightVersion = update.version ?? this.weightVersion + 1;
    if (update.resetPrefixCache) {
      await this.when(() => this.inFlight === null);
      this.scheduler.resetPrefixCache(false);
    }
  }

  async sleep(level: 1 | 2, mode: PauseMode = 'abort'): Promise<void> {
    if (mode === 'abort') this.abortAll();
    if (mode === 'wait') {
      this.draining = true;
      await this.when(() => this.inFlight === null && this.scheduler.runningCount() === 0);
      this.draining = false;
    }
    this.sleepLevel = level;
    await this.when(() => this.inFlight === null);
    this.scheduler.dropKvCache();
  }

  wakeUp(): void {
    this.sleepLevel = 0;
  }

  isSleeping(): boolean {
    return this.sleepLevel > 0;
  }

  resetPrefixCache(options: { resetRunning?: boolean } = {}): boolean {
    if (this.inFlight && options.resetRunning) return false;
    return this.scheduler.resetPrefixCache(options.resetRunning ?? false);
  }

  metrics(): EngineMetricsSnapshot {
    const counters = this.scheduler.counters;
    return {
      capacity: this.capacity,
      running: this.scheduler.runningCount(),
      waiting: this.scheduler.waitingCount(),
      kvCacheUsage: this.scheduler.kvCacheUsage(),
      ...this.totals,
      preemptions: counters.preemptions,
      prefixCacheQueries: counters.prefixCacheQueries,
      prefixCacheHits: counters.prefixCacheHits,
      finished: { ...this.finished },
      weightVersion: this.weightVersion,
      paused: this.isPaused(),
      sleepLevel: this.sleepLevel,
    };
  }

  /** Aborts every running and waiting request (pause abort, sleep abort, updateWeights abortRequests). */
  abortAll(): void {
    for (const request of this.scheduler.requests()) this.end(request, 'abort');
    this.settleWaiters();
  }

  private end(request: EngineRequest, finish: GenerationFinish): void {
    if (request.status === 'finished') return;
    request.end(finish);
    this.scheduler.release(request);
    this.requests.delete(request.id);
    this.finished[finish]++;
    request.notify();
  }

  private when(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ ready, resolve }));
  }

  private settleWaiters(): void {
    const pending = this.waiters;
    this.waiters = [];
    for (const waiter of pending) {
      if (waiter.ready()) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  private checkInFlight(plan: StepPlan): void {
    if (this.inFlight !== plan) throw new Error('completeStep()/interruptStep() for a step that is not in flight');
  }
}
