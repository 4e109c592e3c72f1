// Runs the engine in virtual time (discrete events): a benchmark can simulate hours of GPU time in seconds.
// Time jumps from one event to the next: a step's end, or a callback scheduled with at()/after(). Between
// events the driver yields one macrotask, so promise continuations (a handler awaiting handle.next(),
// an agent loop awaiting a reply) run and may submit requests or schedule callbacks at the current time.
// Nothing reads the wall clock: the same workload (and seed) gives the same timeline on every run.
import { EngineDriver } from './engine-driver.js';
import type { StepPlan } from './step-scheduler.js';

interface TimedEvent {
  at: number;
  seq: number;
  run: () => void;
}

export interface RunOptions {
  /** Stop at this virtual time (ms) even if work remains; the step in flight stays in flight. */
  until?: number;
}

export class VirtualTimeDriver extends EngineDriver {
  /** Virtual time in ms since the driver was created. */
  now = 0;
  private readonly events: TimedEvent[] = [];
  private seq = 0;
  private current: { plan: StepPlan; startedAt: number } | null = null;

  /** Runs `callback` at virtual time `at` (not earlier than now); same-time callbacks run in scheduling order. */
  at(at: number, callback: () => void): void {
    const event = { at: Math.max(at, this.now), seq: ++this.seq, run: callback };
    let index = this.events.length;
    while (index > 0 && this.compare(this.events[index - 1] as TimedEvent, event) > 0) index--;
    this.events.splice(index, 0, event);
  }

  /** Runs `callback` `ms` after now. */
  after(ms: number, callback: () => void): void {
    this.at(this.now + ms, callback);
  }

  /** Processes steps and callbacks until nothing is left to do (or `until`); resolves with the virtual time. */
  async run(options: RunOptions = {}): Promise<number> {
    const until = options.until ?? Number.POSITIVE_INFINITY;
    for (;;) {
      await settle();
      this.startStep();
      const current = this.current;
      const event = this.events[0];
      const stepEnd = current ? current.startedAt + current.plan.durationMs : Number.POSITIVE_INFINITY;
      const next = Math.min(stepEnd, event ? event.at : Number.POSITIVE_INFINITY);
      if (next === Number.POSITIVE_INFINITY) return this.now;
      if (next > until) {
        this.now = until;
        return this.now;
      }
      this.now = next;
      if (current && stepEnd <= next) {
        this.current = null;
        this.engine.completeStep(current.plan);
      } else {
        this.events.shift();
        event?.run();
      }
    }
  }

  protected kick(): void {
    if (this.current?.plan.interruptible) {
      this.engine.interruptStep(this.current.plan, this.now - this.current.startedAt);
      this.current = null;
    }
  }

  private startStep(): void {
    while (!this.current) {
      const plan = this.engine.nextStep();
      if (!plan) return;
      if (plan.durationMs <= 0) this.engine.completeStep(plan);
      else this.current = { plan, startedAt: this.now };
    }
  }

  private compare(a: TimedEvent, b: TimedEvent): number {
    return a.at - b.at || a.seq - b.seq;
  }
}

/** One macrotask turn: every pending promise continuation runs before it ends. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
