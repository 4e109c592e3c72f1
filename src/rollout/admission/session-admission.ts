// The gate in front of the agent stage: a session takes a place before its agent starts and gives it back
// when its agent stage ends. `fixed` is today's --concurrency; `engine` asks the engine-driven controller
// (EngineAdmission) and never exceeds the host's cap (HostCapacity). Waiting sessions start in arrival
// order, re-checked whenever a place is given back or a new engine reading arrives.
import type { EngineAdmission, EngineAdmissionState } from './engine-admission.js';
import type { EngineLoad } from './engine-load.js';

export type AdmissionMode = 'fixed' | 'engine';

export interface AdmissionState {
  mode: AdmissionMode;
  /** Sessions in their agent stage, and sessions waiting for a place. */
  active: number;
  waiting: number;
  /** How many may be active now: --concurrency (fixed), or min(engine target, host cap) (engine). */
  limit: number;
  /** Engine mode: the host's cap, and the controller's state. */
  hostCap: number | null;
  engine: EngineAdmissionState | null;
}

export interface SessionAdmission {
  /** Sessions holding a place now. */
  readonly active: number;
  /** Waits for a place (in arrival order); resolves with the function that gives it back (idempotent). Rejects with `signal`'s reason. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** A new engine reading at `now` (ms on a steady clock); ignored by fixed admission. */
  observe(load: EngineLoad, now: number): void;
  /** A session's agent stage ended having reached `contextTokens` (last prompt + output); ignored by fixed admission. */
  sessionEnded(contextTokens: number): void;
  state(): AdmissionState;
}

interface Waiter {
  grant: () => void;
}

abstract class AdmissionGate implements SessionAdmission {
  #active = 0;
  private readonly waiters: Waiter[] = [];

  get active(): number {
    return this.#active;
  }

  protected abstract mayStart(active: number): boolean;
  abstract observe(load: EngineLoad, now: number): void;
  abstract sessionEnded(contextTokens: number): void;
  abstract state(): AdmissionState;

  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#active += 1;
          let given = false;
          resolve(() => {
            if (given) return;
            given = true;
            this.#active -= 1;
            this.pump();
          });
        },
      };
      const onAbort = (): void => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
      this.pump();
    });
  }

  protected get queued(): number {
    return this.waiters.length;
  }

  /** Starts waiting sessions while the policy allows. */
  protected pump(): void {
    while (this.waiters.length > 0 && this.mayStart(this.#active)) this.waiters.shift()?.grant();
  }
}

/** Today's --concurrency: at most `limit` agents at once. */
export class FixedAdmission extends AdmissionGate {
  constructor(private readonly limit: number) {
    super();
    if (!(limit >= 1)) throw new RangeError(`concurrency must be at least 1, got ${limit}`);
  }

  protected mayStart(active: number): boolean {
    return active < this.limit;
  }

  observe(): void {}

  sessionEnded(): void {}

  state(): AdmissionState {
    return { mode: 'fixed', active: this.active, waiting: this.queued, limit: this.limit, hostCap: null, engine: null };
  }
}

/** `--admission engine`: the engine's target and gate, under the host's cap. */
export class EngineSessionAdmission extends AdmissionGate {
  constructor(
    private readonly controller: EngineAdmission,
    private readonly hostCap: () => number,
  ) {
    super();
  }

  protected mayStart(active: number): boolean {
    return active < Math.max(1, this.hostCap()) && this.controller.mayStart(active);
  }

  observe(load: EngineLoad, now: number): void {
    this.controller.observe(load, now, this.active);
    this.pump();
  }

  sessionEnded(contextTokens: number): void {
    this.controller.sessionEnded(contextTokens);
    this.pump();
  }

  state(): AdmissionState {
    const engine = this.controller.state();
    const hostCap = Math.max(1, this.hostCap());
    return { mode: 'engine', active: this.active, waiting: this.queued, limit: Math.min(hostCap, engine.target), hostCap, engine };
  }
}
