// Runs the engine on the wall clock (the HTTP simulator): a timer per step. Steps are laid end to end on
// an ideal timeline, so late timers do not slow the simulated GPU down (up to MAX_LAG_MS of catch-up).
import { EngineDriver } from './engine-driver.js';
import type { GenerationEngine } from './generation-engine.js';
import type { StepPlan } from './step-scheduler.js';

/** The clock a real-time driver uses (tests may pass their own). */
export interface WallClock {
  now(): number;
  setTimer(callback: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const SYSTEM_CLOCK: WallClock = {
  now: () => performance.now(),
  setTimer: (callback, ms) => setTimeout(callback, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** How far behind the wall clock the timeline may fall before it stops catching up. */
const MAX_LAG_MS = 100;

export class RealTimeDriver extends EngineDriver {
  private current: { plan: StepPlan; startedAt: number; timer: unknown } | null = null;
  /** Ideal end of the previous step; null after an idle spell. */
  private lastEnd: number | null = null;
  private closed = false;

  constructor(
    engine: GenerationEngine,
    private readonly clock: WallClock = SYSTEM_CLOCK,
  ) {
    super(engine);
  }

  /** Stops stepping and aborts whatever is left (server shutdown). */
  close(): void {
    this.closed = true;
    if (this.current) this.clock.clearTimer(this.current.timer);
    this.current = null;
    this.engine.abortAll();
  }

  protected kick(): void {
    if (this.closed) return;
    if (this.current) {
      if (!this.current.plan.interruptible) return;
      const { plan, startedAt, timer } = this.current;
      this.clock.clearTimer(timer);
      this.current = null;
      this.engine.interruptStep(plan, this.clock.now() - startedAt);
      this.lastEnd = null;
    }
    this.run();
  }

  private run(): void {
    for (;;) {
      const plan = this.engine.nextStep();
      if (!plan) {
        this.lastEnd = null;
        return;
      }
      if (plan.durationMs <= 0) {
        this.engine.completeStep(plan);
        continue;
      }
      const now = this.clock.now();
      const startedAt = this.lastEnd === null ? now : Math.max(this.lastEnd, now - MAX_LAG_MS);
      const end = startedAt + plan.durationMs;
      const timer = this.clock.setTimer(() => {
        this.current = null;
        this.lastEnd = end;
        this.engine.completeStep(plan);
        if (!this.closed) this.run();
      }, Math.max(0, end - now));
      this.current = { plan, startedAt, timer };
      return;
    }
  }
}
