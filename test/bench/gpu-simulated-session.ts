// One simulated agent session on the simulated GPU, in virtual time: init (container create + workspace
// prepare), the agent (harness start-up, then each planned model call through polar's generation gate to the
// engine, then the tool time), post (patch, SWE-bench evaluation, teardown). Its stage functions are what
// the production stage pools run. A cancelled session stops at once: its call in flight is aborted in the
// engine, a held call or a tool wait ends.
import { HeldCallAbortedError, type GenerationGate } from '../../src/gateway/generation-control.js';
import type { AdmissionPlace } from '../../src/rollout/admission/session-admission.js';
import { HeldContext } from '../../src/rollout/admission/session-contexts.js';
import type { GenerationHandle } from '../../src/sim/engine/generation-types.js';
import type { VirtualClock, VirtualTimeDriver } from '../../src/sim/engine/virtual-time-driver.js';
import type { MeteredScheduler, UsefulAccount } from './gpu-metered-scheduler.js';
import type { SessionTokens } from './gpu-session-tokens.js';
import type { SessionPlan } from './workload/session-plan.js';

export type SimStage = 'queued' | 'init' | 'ready' | 'running' | 'post' | 'done';

/** One engine GPU a session's calls go to. */
export interface SessionEngine {
  gpu: VirtualTimeDriver;
  meter: MeteredScheduler;
  /** Sessions whose calls go to it now. */
  sessions: number;
}

/** The machine every session of a loop shares. */
export interface SimWorld {
  clock: VirtualClock;
  /** polar's gateway gate: holds calls while generation is paused, records the policy version. */
  gate: GenerationGate;
  /** The engine a starting session's calls go to (counted in its `sessions` until the session's agent ends). */
  engineFor(place: AdmissionPlace | undefined): SessionEngine;
}

export class SimSession implements UsefulAccount {
  stage: SimStage = 'queued';
  cancelled = false;
  usefulMs = 0;
  /** Weight version of every sampled token, in order (the engine's per-token versions). */
  readonly versions: number[] = [];
  /** Tokens of the whole merged sequence (last prompt + last output). */
  sequenceTokens = 0;
  /** What its context held and reached, call by call (engine admission's estimate and guard). */
  readonly context = new HeldContext();
  endedAt: number | null = null;
  /** Virtual time its agent started (null before). */
  agentStartedAt: number | null = null;
  /** A trainer step took it (its group was complete). */
  trained = false;
  /** Virtual time of the cancel (null when never cancelled). */
  cancelledAt: number | null = null;
  readonly stop = new AbortController();
  private handle: GenerationHandle | null = null;
  /** The engine its calls go to while its agent runs. */
  private engine: SessionEngine | null = null;

  constructor(
    readonly id: number,
    /** The batch (submission) it belongs to, and its group (task) within the loop. */
    readonly batch: number,
    readonly group: number,
    readonly plan: SessionPlan,
    private readonly tokens: SessionTokens,
    private readonly world: SimWorld,
  ) {}

  get ended(): boolean {
    return this.stage === 'done';
  }

  /** Share of the planned output tokens sampled so far (1 once ended). */
  progress(): number {
    if (this.ended) return 1;
    const planned = this.plan.turns.reduce((sum, turn) => sum + turn.outputTokens, 0);
    return planned === 0 ? 0 : Math.min(1, this.versions.length / planned);
  }

  async init(): Promise<void> {
    this.stage = 'init';
    await this.wait(this.plan.initMs);
    this.stage = 'ready';
  }

  /** The agent; `place`: its place in the admission gate, told the context the session holds after each call. */
  async run(place?: AdmissionPlace): Promise<void> {
    if (this.cancelled) return;
    this.stage = 'running';
    this.agentStartedAt = this.world.clock.now;
    this.engine = this.world.engineFor(place);
    try {
      await this.wait(this.plan.harnessStartMs);
      for (let index = 0; index < this.plan.turns.length && !this.cancelled; index++) {
        const turn = this.plan.turns[index]!;
        const { prompt, output } = this.tokens.call(turn, index);
        if (!(await this.call(prompt, output, turn.prefixTokens))) return;
        this.sequenceTokens = prompt.length + output.length;
        this.context.add(prompt.length, output.length);
        place?.holding(this.context.current);
        await this.wait(turn.toolMs);
      }
    } finally {
      this.engine.sessions -= 1;
    }
  }

  async post(): Promise<void> {
    if (!this.cancelled) {
      this.stage = 'post';
      await this.wait(this.plan.postMs);
    }
    this.stage = 'done';
    this.endedAt = this.world.clock.now;
  }

  /** Stops the session now: the call in flight is aborted in the engine, a held call or a wait ends. */
  cancel(): void {
    if (this.cancelled || this.ended) return;
    this.cancelled = true;
    this.cancelledAt = this.world.clock.now;
    this.handle?.cancel();
    this.stop.abort();
  }

  /** One model call through the gate; false when the session was cancelled meanwhile. */
  private async call(prompt: readonly number[], output: readonly number[], prefixTokens: number): Promise<boolean> {
    const { gate } = this.world;
    const { gpu, meter } = this.engine as SessionEngine;
    const modelCall = {};
    try {
      await gate.enter(modelCall, this.stop.signal);
    } catch (error) {
      if (error instanceof HeldCallAbortedError) return false;
      throw error;
    }
    try {
      const handle = gpu.submit({ promptTokenIds: prompt, outputTokenIds: output });
      meter.track(handle.id, { usefulFrom: prefixTokens, account: this });
      this.handle = handle;
      const batch = await handle.next(Number.POSITIVE_INFINITY);
      for (const token of batch.tokens) this.versions.push(token.version);
      return batch.finish !== 'abort';
    } finally {
      this.handle = null;
      gate.leave(modelCall);
    }
  }

  /** Virtual time passes (a tool, a Docker phase); ends early when the session is cancelled. */
  private wait(ms: number): Promise<void> {
    if (ms <= 0 || this.cancelled) return Promise.resolve();
    return new Promise((resolve) => {
      const signal = this.stop.signal;
      const done = (): void => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      this.world.clock.after(ms, done);
    });
  }
}
