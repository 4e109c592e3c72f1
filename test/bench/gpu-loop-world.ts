// The machine one training loop of the GPU benchmark runs on, in virtual time: one or more simulated engine GPUs
// (the profile's continuous-batching engine with a meter, on one virtual clock), polar's generation gate and
// policy-version / max-staleness gate (EngineGeneration), polar's stage pools with an admission gate, the engine
// readings admission takes every pollMs (each replica's), and the books: batches, groups in completion order,
// trainer steps, idle gaps. A session's calls go to one engine: the replica its admission place names, else the
// engine with the fewest sessions (the gateway's rule at a session's first call).
import type { Gateway } from '../../src/gateway/create-gateway.js';
import { GenerationGate } from '../../src/gateway/generation-control.js';
import { engineLoadFromSimulator } from '../../src/rollout/admission/engine-load.js';
import type { SessionAdmission } from '../../src/rollout/admission/session-admission.js';
import { EngineGeneration } from '../../src/rollout/engine-generation.js';
import { defaultPipelineSizes } from '../../src/rollout/run-pipeline.js';
import { StagePools } from '../../src/rollout/stage-pools.js';
import { ContinuousBatchingScheduler } from '../../src/sim/engine/continuous-batching-scheduler.js';
import { GenerationEngine } from '../../src/sim/engine/generation-engine.js';
import { VirtualClock, VirtualTimeDriver } from '../../src/sim/engine/virtual-time-driver.js';
import type { PauseMode } from '../../src/sim/engine/generation-types.js';
import type { AdmissionPlace } from '../../src/rollout/admission/session-admission.js';
import type { EngineLoad } from '../../src/rollout/admission/engine-load.js';
import { resolveGpu, type ResolvedGpu } from '../../src/sim/gpu/gpu-profiles.js';
import { MeteredScheduler } from './gpu-metered-scheduler.js';
import { groupFirstPrompt, SessionTokens, TokenSource } from './gpu-session-tokens.js';
import { SimSession, type SimWorld } from './gpu-simulated-session.js';
import type { SessionPlan } from './workload/session-plan.js';

export interface WorldOptions {
  profile: string;
  /** Session slots of the host: the pools are sized for this many agents (defaultPipelineSizes). */
  hostSlots: number;
  /** Host cores (the pools' helper sizing). */
  cores: number;
  maxStaleness: number | undefined;
  /** Engine readings for admission, ms. */
  pollMs: number;
  admission: SessionAdmission;
  /** Engine GPUs (replicas, named gpu-0, gpu-1, …; default 1). */
  engines?: number;
}

/** One simulated engine GPU: its engine, the meter on its scheduler, its driver on the shared clock. */
export interface SimEngine {
  name: string;
  meter: MeteredScheduler;
  engine: GenerationEngine;
  gpu: VirtualTimeDriver;
  /** Sessions whose calls go to it now. */
  sessions: number;
  /** Idle gaps outside trainer steps: [start, end) in virtual ms; and the end of its last step. */
  idle: [number, number][];
  lastStepEnd: number;
}

export interface Batch {
  index: number;
  /** The policy version the batch asks for (the max-staleness gate compares it with the current one). */
  version: number;
  sessions: SimSession[];
  /** Group ids of this batch. */
  groups: number[];
}

/** Counters of the GPU at one moment (the end of a trainer step). */
export interface GpuCounters {
  at: number;
  busyMs: number;
  usefulMs: number;
  batchMs: number;
  preemptions: number;
  processedTokens: number;
  generationTokens: number;
  /** Work in progress in sessions: each submitted session not trained yet (nor cancelled) counts its share of planned output tokens sampled. */
  inProgress: number;
}

/** Sampled tokens so far, every `SAMPLE_MS` of virtual time, and whether a trainer step was running. */
export interface RateSample {
  at: number;
  generationTokens: number;
  training: boolean;
}

export const SAMPLE_MS = 60_000;

export interface TrainedStep {
  step: number;
  startedAt: number;
  endedAt: number;
  sessions: SimSession[];
  /** The GPU's counters when the step ended. */
  counters: GpuCounters;
}

export class LoopWorld implements SimWorld {
  readonly resolved: ResolvedGpu;
  readonly clock = new VirtualClock();
  readonly engines: SimEngine[];
  readonly gate = new GenerationGate(0);
  readonly generation: EngineGeneration;
  readonly pools: StagePools<SimSession>;
  readonly batches: Batch[] = [];
  /** Group ids in the order their last session ended. */
  readonly completed: number[] = [];
  readonly steps: TrainedStep[] = [];
  readonly rates: RateSample[] = [];
  /** Engine GPU time spent in steps that ended while the trainer was computing (0 where a step holds the engines' GPU). */
  engineMsDuringTraining = 0;
  private training = false;
  private readonly sessionsOfGroup = new Map<number, SimSession[]>();
  private readonly tokens = new TokenSource();
  private readonly harnessPrefix = new Map<string, Int32Array>();
  private readonly wakers = new Set<() => void>();
  private nextSession = 1;
  private feeding: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The pools have closed: the engine readings stop (until then they go on, so a closed gate opens for the cancelled sessions still waiting for a place). */
  private closed = false;
  failure: unknown;

  constructor(private readonly options: WorldOptions) {
    this.resolved = resolveGpu(options.profile);
    this.engines = Array.from({ length: options.engines ?? 1 }, (_, index) => {
      const entry = { name: `gpu-${index}`, sessions: 0, idle: [], lastStepEnd: 0 } as unknown as SimEngine;
      entry.meter = new MeteredScheduler(new ContinuousBatchingScheduler(this.resolved.scheduler), (durationMs) => this.onStep(entry, durationMs));
      entry.engine = new GenerationEngine(entry.meter, { capacity: this.resolved.capacity });
      entry.gpu = new VirtualTimeDriver(entry.engine, this.clock);
      return entry;
    });
    this.generation = new EngineGeneration(0, options.maxStaleness);
    this.generation.attach({ generation: this.gate } as unknown as Gateway);
    this.pools = new StagePools<SimSession>(
      defaultPipelineSizes(options.hostSlots, options.cores),
      {
        init: (session) => session.init(),
        run: async (session, place) => {
          await session.run(place);
          const context = session.context.value();
          if (!session.cancelled && context !== null) options.admission.sessionEnded(context);
        },
        post: (session) => session.post(),
        dropped: (session) => session.cancelled,
        left: (session, how) => this.left(session, how),
      },
      options.admission,
    );
    this.poll();
  }

  /** Queues a batch of groups (plans of one group share their task); its sessions start in order, each after the max-staleness gate. */
  submit(groups: { id: number; plans: SessionPlan[] }[], version: number): Batch {
    const batch: Batch = { index: this.batches.length, version, sessions: [], groups: groups.map((group) => group.id) };
    for (const group of groups) {
      const first = groupFirstPrompt(this.tokens, this.harnessPrefix, group.plans[0]!);
      const members = group.plans.map((plan) => new SimSession(this.nextSession++, batch.index, group.id, plan, new SessionTokens(this.tokens, first), this));
      this.sessionsOfGroup.set(group.id, members);
      batch.sessions.push(...members);
    }
    this.batches.push(batch);
    const controller = new AbortController();
    this.feeding = this.feeding.then(async () => {
      for (const session of batch.sessions) {
        if (this.stopped) return;
        await this.generation.admit(batch.version, controller.signal);
        if (this.stopped) return;
        this.pools.submit(session);
      }
    });
    return batch;
  }

  sessionsOf(group: number): SimSession[] {
    return this.sessionsOfGroup.get(group) ?? [];
  }

  /** Resolves once `ready()` holds (checked after every session end). */
  until(ready: () => boolean): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (!ready()) return;
        this.wakers.delete(check);
        resolve();
      };
      this.wakers.add(check);
    });
  }

  /** Virtual time, ms. */
  get now(): number {
    return this.clock.now;
  }

  /**
   * A trainer step on these sessions takes `ms` (on the shared GPU the caller paused generation; on trainer GPUs
   * the engines go on). `onEngineGpu`: the step holds the engine's GPU (its idle gaps close at the step).
   */
  async train(step: number, sessions: SimSession[], ms: number, onEngineGpu = true): Promise<void> {
    const startedAt = this.clock.now;
    if (onEngineGpu) for (const engine of this.engines) this.closeIdleGap(engine, startedAt);
    for (const session of sessions) session.trained = true;
    this.training = true;
    await this.wait(ms);
    this.training = false;
    this.steps.push({ step, startedAt, endedAt: this.clock.now, sessions, counters: this.counters() });
    if (onEngineGpu) for (const engine of this.engines) engine.lastStepEnd = this.clock.now;
  }

  /** Virtual time passes. */
  wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => this.clock.after(ms, resolve));
  }

  /** The engine a starting session's calls go to: its admission place's replica, else the one with the fewest sessions. */
  engineFor(place: AdmissionPlace | undefined): SimEngine {
    const named = place?.replica == null ? undefined : this.engines.find((engine) => engine.name === place.replica);
    const chosen = named ?? this.engines.reduce((best, engine) => (engine.sessions < best.sessions ? engine : best));
    chosen.sessions += 1;
    return chosen;
  }

  /** Every engine paused (`keep`: calls in flight frozen with their KV); resolves once every one is. */
  async pauseEngines(mode: PauseMode): Promise<void> {
    await Promise.all(this.engines.map((engine) => engine.gpu.pause(mode)));
  }

  resumeEngines(): void {
    for (const engine of this.engines) engine.gpu.resume();
  }

  async updateWeights(version: number): Promise<void> {
    await Promise.all(this.engines.map((engine) => engine.gpu.updateWeights({ version })));
  }

  /** Every engine asleep (level 1, calls in flight kept but their KV dropped: they recompute after the wake). */
  async sleepEngines(): Promise<void> {
    await Promise.all(this.engines.map((engine) => engine.gpu.sleep(1, 'keep')));
  }

  wakeEngines(): void {
    for (const engine of this.engines) engine.gpu.wakeUp();
  }

  counters(): GpuCounters {
    let busyMs = 0;
    let usefulMs = 0;
    let batchMs = 0;
    let preemptions = 0;
    let processedTokens = 0;
    let generationTokens = 0;
    for (const { meter, engine } of this.engines) {
      busyMs += meter.totals.busyMs;
      usefulMs += meter.totals.usefulMs;
      batchMs += meter.totals.batchMs;
      const metrics = engine.metrics();
      preemptions += metrics.preemptions;
      processedTokens += metrics.processedTokens;
      generationTokens += metrics.generationTokens;
    }
    let inProgress = 0;
    for (const batch of this.batches) for (const session of batch.sessions) if (!session.trained && !session.cancelled) inProgress += session.progress();
    return { at: this.clock.now, busyMs, usefulMs, batchMs, preemptions, processedTokens, generationTokens, inProgress };
  }

  /** Ends the loop: every session still going is cancelled, queued ones dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const batch of this.batches) for (const session of batch.sessions) session.cancel();
    this.generation.resume();
    this.wakeEngines();
    this.resumeEngines();
    await this.pools.close();
    this.closed = true;
  }

  private left(session: SimSession, how: { dropped: boolean; failure?: unknown }): void {
    if (how.failure !== undefined) this.failure ??= how.failure;
    if (session.stage !== 'done') {
      session.stage = 'done';
      session.endedAt = this.clock.now;
    }
    if (this.sessionsOf(session.group).every((member) => member.ended)) this.completed.push(session.group);
    for (const wake of [...this.wakers]) wake();
  }

  private onStep(engine: SimEngine, durationMs: number): void {
    if (this.training) this.engineMsDuringTraining += durationMs;
    const start = this.clock.now - durationMs;
    this.closeIdleGap(engine, start);
    engine.lastStepEnd = this.clock.now;
  }

  private closeIdleGap(engine: SimEngine, until: number): void {
    if (until > engine.lastStepEnd + 1e-6) engine.idle.push([engine.lastStepEnd, until]);
    engine.lastStepEnd = Math.max(engine.lastStepEnd, until);
  }

  private poll(): void {
    if (this.closed) return;
    const loads = new Map<string, EngineLoad>(this.engines.map((engine) => [engine.name, engineLoadFromSimulator(engine.engine.metrics())]));
    this.options.admission.observe(this.engines.length === 1 ? (loads.get('gpu-0') as EngineLoad) : loads, this.clock.now);
    const last = this.rates[this.rates.length - 1];
    if (last === undefined || this.clock.now - last.at >= SAMPLE_MS) this.rates.push({ at: this.clock.now, generationTokens: this.counters().generationTokens, training: this.training });
    this.clock.after(this.options.pollMs, () => this.poll());
  }
}
