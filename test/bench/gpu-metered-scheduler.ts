// The simulated GPU's scheduler with a meter: every step's duration is split between useful work and waste by
// the tokens it computed. Useful: a call's tokens past the prefix its previous call left in the cache (the
// plan's prefixTokens) computed for the first time, and its sampled tokens. Waste: recomputation after a
// preemption, re-prefill of a prefix the cache had evicted, and (once a session is cancelled) everything its
// calls computed. The split is by token share within a step: exact for decode-only and prefill-only steps,
// approximate for mixed ones (a prefill chunk's tokens then carry the decode tokens' share of the KV reads).
import type { EngineRequest } from '../../src/sim/engine/engine-request.js';
import type { SchedulerCounters, StepPlan, StepScheduler } from '../../src/sim/engine/step-scheduler.js';

/** What the meter knows about one call (registered right after submit). */
export interface MeteredCall {
  /** Prompt tokens the previous call left in the prefix cache (0 for a first call). */
  usefulFrom: number;
  /** Who is charged: the session's account. */
  account: UsefulAccount;
}

/** GPU time charged to one session. */
export interface UsefulAccount {
  usefulMs: number;
}

interface CallMeter extends MeteredCall {
  /** Furthest position ever computed (positions below it computed again are recomputation). */
  computedUpTo: number;
}

export class MeteredScheduler implements StepScheduler {
  /** GPU ms of useful work and of all steps, running requests x ms, tokens computed, useful tokens. */
  readonly totals = { usefulMs: 0, busyMs: 0, batchMs: 0, tokens: 0, usefulTokens: 0 };
  private readonly calls = new Map<string, CallMeter>();

  /** `onStep` hears of every completed step (the driver's clock is then at the step's end). */
  constructor(
    private readonly inner: StepScheduler,
    private readonly onStep: (durationMs: number) => void = () => {},
  ) {}

  get counters(): SchedulerCounters {
    return this.inner.counters;
  }

  /** Registers a submitted call (`id`: the GenerationHandle's id). */
  track(id: string, call: MeteredCall): void {
    this.calls.set(id, { ...call, computedUpTo: call.usefulFrom });
  }

  enqueue(request: EngineRequest): void {
    this.inner.enqueue(request);
  }

  release(request: EngineRequest): void {
    this.calls.delete(request.id);
    this.inner.release(request);
  }

  plan(admitNew: boolean): StepPlan | null {
    return this.inner.plan(admitNew);
  }

  complete(plan: StepPlan): [EngineRequest, number][] {
    const work = plan.work as { request: EngineRequest; tokens: number }[];
    let total = 0;
    const useful: [CallMeter | undefined, number][] = [];
    for (const { request, tokens } of work) {
      const meter = this.calls.get(request.id);
      const start = request.numComputed;
      const end = start + tokens;
      const fresh = meter === undefined ? 0 : Math.max(0, end - Math.max(start, meter.computedUpTo));
      if (meter !== undefined) meter.computedUpTo = Math.max(meter.computedUpTo, end);
      useful.push([meter, fresh]);
      total += tokens;
    }
    this.totals.busyMs += plan.durationMs;
    this.totals.batchMs += plan.batchSize * plan.durationMs;
    this.totals.tokens += total;
    this.onStep(plan.durationMs);
    for (const [meter, fresh] of useful) {
      if (meter === undefined || total === 0) continue;
      const ms = (plan.durationMs * fresh) / total;
      meter.account.usefulMs += ms;
      this.totals.usefulMs += ms;
      this.totals.usefulTokens += fresh;
    }
    return this.inner.complete(plan);
  }

  interrupt(plan: StepPlan, elapsedMs: number): void {
    this.inner.interrupt(plan, elapsedMs);
  }

  requests(): EngineRequest[] {
    return this.inner.requests();
  }

  runningCount(): number {
    return this.inner.runningCount();
  }

  waitingCount(): number {
    return this.inner.waitingCount();
  }

  kvCacheUsage(): number {
    return this.inner.kvCacheUsage();
  }

  dropKvCache(): void {
    this.inner.dropKvCache();
  }

  resetPrefixCache(resetRunning: boolean): boolean {
    return this.inner.resetPrefixCache(resetRunning);
  }
}
