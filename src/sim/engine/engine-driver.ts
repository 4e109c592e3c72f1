// What a driver adds to the clock-agnostic engine: it runs the steps. This base class is the surface route
// handlers, tests and benchmarks use (submit + control + metrics); subclasses decide how time passes.
import type { EngineMetricsSnapshot } from './engine-metrics.js';
import type { GenerationEngine } from './generation-engine.js';
import type { EngineControl, GenerationHandle, GenerationRequest, PauseMode, PauseOptions, WeightUpdate } from './generation-types.js';

/** Submit requests and control the engine: what a route handler (or a benchmark) needs. */
export interface GenerationService extends EngineControl {
  submit(request: GenerationRequest): GenerationHandle;
  metrics(): EngineMetricsSnapshot;
}

export abstract class EngineDriver implements GenerationService {
  constructor(readonly engine: GenerationEngine) {}

  /** Something may be runnable now (a request arrived, the engine resumed or woke up). */
  protected abstract kick(): void;

  submit(request: GenerationRequest): GenerationHandle {
    const entry = this.engine.add(request);
    this.kick();
    return {
      id: entry.id,
      next: (n) => entry.next(n),
      cancel: () => {
        this.engine.abort(entry.id);
        this.kick();
      },
    };
  }

  pause(mode: PauseMode, options?: PauseOptions): Promise<void> {
    const done = this.engine.pause(mode, options);
    this.kick();
    return done;
  }

  resume(): void {
    this.engine.resume();
    this.kick();
  }

  isPaused(): boolean {
    return this.engine.isPaused();
  }

  updateWeights(update: WeightUpdate): Promise<void> {
    const done = this.engine.updateWeights(update);
    this.kick();
    return done;
  }

  abortAll(): void {
    this.engine.abortAll();
    this.kick();
  }

  sleep(level: 1 | 2, mode?: PauseMode): Promise<void> {
    const done = this.engine.sleep(level, mode);
    this.kick();
    return done;
  }

  wakeUp(): void {
    this.engine.wakeUp();
    this.kick();
  }

  isSleeping(): boolean {
    return this.engine.isSleeping();
  }

  resetPrefixCache(options?: { resetRunning?: boolean }): boolean {
    const reset = this.engine.resetPrefixCache(options);
    this.kick();
    return reset;
  }

  metrics(): EngineMetricsSnapshot {
    return this.engine.metrics();
  }
}
