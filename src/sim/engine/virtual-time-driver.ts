// Runs engines in virtual time (discrete events): a benchmark can simulate hours of GPU time in seconds.
// Time jumps from one event to the next: a step's end, or a callback scheduled with at()/after(). Between
// events the clock yields one macrotask, so promise continuations (a handler awaiting handle.next(),
// an agent loop awaiting a reply) run and may submit requests or schedule callbacks at the current time.
// Several engines (GPUs) can share one clock (`new VirtualTimeDriver(engine, clock)`): each runs its own steps,
// and their step ends and the callbacks interleave in time order. Nothing reads the wall clock: the same
// workload (and seed) gives the same timeline on every run.
import { EngineDriver } from './engine-driver.js';
import type { GenerationEngine } from './generation-engine.js';
import type { StepPlan } from './step-scheduler.js';

interface TimedEvent {
  at: number;
  seq: number;
  run: () => void;
}

export interface RunOptions {
  /** Stop at this virtual time (ms) even if work remains; the steps in flight stay in flight. */
  until?: number;
}

/** Virtual time shared by the engines of one simulated machine (or cluster), and the callbacks scheduled on it. */
export class VirtualClock {
  /** Virtual time in ms since the clock was created. */
  now = 0;
  private readonly events: TimedEvent[] = [];
  private seq = 0;
  private readonly drivers: VirtualTimeDriver[] = [];

  /** Runs `callback` at virtual time `at` (not earlier than now); same-time callbacks run in scheduling order. */
  at(at: number, callback: () => void): void {
    const event = { at: Math.max(at, this.now), seq: ++this.seq, run: callback };
    let index = this.events.length;
    while (index > 0 && compare(this.events[index - 1] as TimedEvent, event) > 0) index--;
    this.events.splice(index, 0, event);
  }

  /** Runs `callback` `ms` after now. */
  after(ms: number, callback: () => void): void {
    this.at(this.now + ms, callback);
  }

  /** @internal A driver joins the clock (in creation order: at equal step ends, the earlier driver's step completes first). */
  attach(driver: VirtualTimeDriver): void {
    this.drivers.push(driver);
  }

  /** Processes steps and callbacks until nothing is left to do (or `until`); resolves with the virtual time. */
  async run(options: RunOptions = {}): Promise<number> {
    const until = options.until ?? Number.POSITIVE_INFINITY;
    for (;;) {
      await settle();
      let first: VirtualTimeDriver | null = null;
      let stepEnd = Number.POSITIVE_INFINITY;
      for (const driver of this.drivers) {
        driver.startStep();
        const end = driver.stepEnd();
        if (end < stepEnd) {
          stepEnd = end;
          first = driver;
        }
      }
      const event = this.events[0];
      const next = Math.min(stepEnd, event ? event.at : Number.POSITIVE_INFINITY);
      if (next === Number.POSITIVE_INFINITY) return this.now;
      if (next > until) {
        this.now = until;
        return this.now;
      }
      this.now = next;
      if (first !== null && stepEnd <= next) first.completeStep();
      else {
        this.events.shift();
        event?.run();
      }
    }
  }
}

/** One engine (GPU) on a virtual clock: its own by default, or one shared with other engines. */
export class VirtualTimeDriver extends EngineDriver {
  readonly clock: VirtualClock;
  private current: { plan: StepPlan; startedAt: number } | null = null;

  constructor(engine: GenerationEngine, clock: VirtualClock = new VirtualClock()) {
    super(engine);
    this.clock = clock;
    clock.attach(this);
  }

  /** Virtual time in ms (the clock's). */
  get now(): number {
    return this.clock.now;
  }

  at(at: number, callback: () => void): void {
    this.clock.at(at, callback);
  }

  after(ms: number, callback: () => void): void {
    this.clock.after(ms, callback);
  }

  /** Runs the clock (every engine on it) until nothing is left to do (or `until`). */
  run(options: RunOptions = {}): Promise<number> {
    return this.clock.run(options);
  }

  protected kick(): void {
    if (this.current?.plan.interruptible) {
      this.engine.interruptStep(this.current.plan, this.clock.now - this.current.startedAt);
      this.current = null;
    }
  }

  /** @internal Plans steps until one takes time (or none can run). */
  startStep(): void {
    while (!this.current) {
      const plan = this.engine.nextStep();
      if (!plan) return;
      if (plan.durationMs <= 0) this.engine.completeStep(plan);
      else this.current = { plan, startedAt: this.clock.now };
    }
  }

  /** @internal When the step in flight ends (infinity: none). */
  stepEnd(): number {
    return this.current ? this.current.startedAt + this.current.plan.durationMs : Number.POSITIVE_INFINITY;
  }

  /** @internal The step in flight has ended (the clock is at its end). */
  completeStep(): void {
    const current = this.current;
    if (!current) return;
    this.current = null;
    this.engine.completeStep(current.plan);
  }
}

function compare(a: TimedEvent, b: TimedEvent): number {
  return a.at - b.at || a.seq - b.seq;
}

/** One macrotask turn: every pending promise continuation runs before it ends. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
