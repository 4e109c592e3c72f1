// The machine one training loop of the GPU benchmark runs on, in virtual time: one simulated GPU (the
// profile's continuous-batching engine with a meter), polar's generation gate and policy-version /
// max-staleness gate (EngineGeneration), polar's stage pools with an admission gate, the engine readings
// admission takes every pollMs, and the books: batches, groups in completion order, trainer steps, idle gaps.
import type { Gateway } from '../../src/gateway/create-gateway.js';
import { GenerationGate } from '../../src/gateway/generation-control.js';
import { engineLoadFromSimulator } from '../../src/rollout/admission/engine-load.js';
import type { SessionAdmission } from '../../src/rollout/admission/session-admission.js';
import { EngineGeneration } from '../../src/rollout/engine-generation.js';
import { defaultPipelineSizes } from '../../src/rollout/run-pipeline.js';
import { StagePools } from '../../src/rollout/stage-pools.js';
import { ContinuousBatchingScheduler } from '../../src/sim/engine/continuous-batching-scheduler.js';
import { GenerationEngine } from '../../src/sim/engine/generation-engine.js';
import { VirtualTimeDriver } from '../../src/sim/engine/virtual-time-driver.js';
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
  readonly meter: MeteredScheduler;
  readonly engine: GenerationEngine;
  readonly gpu: VirtualTimeDriver;
  readonly gate = new GenerationGate(0);
  readonly generation: EngineGeneration;
  readonly pools: StagePools<SimSession>;
  readonly batches: Batch[] = [];
  /** Group ids in the order their last session ended. */
  readonly completed: number[] = [];
  readonly steps: TrainedStep[] = [];
  /** Idle gaps of the GPU outside trainer steps: [start, end) in virtual ms. */
  readonly idle: [number, number][] = [];
  readonly rates: RateSample[] = [];
  private training = false;
  private readonly sessionsOfGroup = new Map<number, SimSession[]>();
  private readonly tokens = new TokenSource();
  private readonly harnessPrefix = new Map<string, Int32Array>();
  private readonly wakers = new Set<() => void>();
  private lastStepEnd = 0;
  private nextSession = 1;
  private feeding: Promise<void> = Promise.resolve();
  private stopped = false;
  failure: unknown;

  constructor(private readonly options: WorldOptions) {
    this.resolved = resolveGpu(options.profile);
    this.meter = new MeteredScheduler(new ContinuousBatchingScheduler(this.resolved.scheduler), (durationMs) => this.onStep(durationMs));
    this.engine = new GenerationEngine(this.meter, { capacity: this.resolved.capacity });
    this.gpu = new VirtualTimeDriver(this.engine);
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

  /** GPU time passes for a trainer step on these sessions (generation must be paused by the caller). */
  async train(step: number, sessions: SimSession[], ms: number): Promise<void> {
    const startedAt = this.gpu.now;
    this.closeIdleGap(startedAt);
    for (const session of sessions) session.trained = true;
    this.training = true;
    await new Promise<void>((resolve) => this.gpu.after(ms, resolve));
    this.training = false;
    this.steps.push({ step, startedAt, endedAt: this.gpu.now, sessions, counters: this.counters() });
    this.lastStepEnd = this.gpu.now;
  }

  counters(): GpuCounters {
    const metrics = this.engine.metrics();
    const { busyMs, usefulMs, batchMs } = this.meter.totals;
    let inProgress = 0;
    for (const batch of this.batches) for (const session of batch.sessions) if (!session.trained && !session.cancelled) inProgress += session.progress();
    return { at: this.gpu.now, busyMs, usefulMs, batchMs, preemptions: metrics.preemptions, processedTokens: metrics.processedTokens, generationTokens: metrics.generationTokens, inProgress };
  }

  /** Ends the loop: every session still going is cancelled, queued ones dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const batch of this.batches) for (const session of batch.sessions) session.cancel();
    this.generation.resume();
    this.gpu.resume();
    await this.pools.close();
  }

  private left(session: SimSession, how: { dropped: boolean; failure?: unknown }): void {
    if (how.failure !== undefined) this.failure ??= how.failure;
    if (session.stage !== 'done') {
      session.stage = 'done';
      session.endedAt = this.gpu.now;
    }
    if (this.sessionsOf(session.group).every((member) => member.ended)) this.completed.push(session.group);
    for (const wake of [...this.wakers]) wake();
  }

  private onStep(durationMs: number): void {
    const start = this.gpu.now - durationMs;
    this.closeIdleGap(start);
    this.lastStepEnd = this.gpu.now;
  }

  private closeIdleGap(until: number): void {
    if (until > this.lastStepEnd + 1e-6) this.idle.push([this.lastStepEnd, until]);
    this.lastStepEnd = Math.max(this.lastStepEnd, until);
  }

  private poll(): void {
    if (this.stopped) return;
    const metrics = this.engine.metrics();
    this.options.admission.observe(engineLoadFromSimulator(metrics), this.gpu.now);
    const last = this.rates[this.rates.length - 1];
    if (last === undefined || this.gpu.now - last.at >= SAMPLE_MS) this.rates.push({ at: this.gpu.now, generationTokens: metrics.generationTokens, training: this.training });
    this.gpu.after(this.options.pollMs, () => this.poll());
  }
}
