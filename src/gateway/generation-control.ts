// Pause and resume of generation around a trainer's weight sync: while paused, new model calls are held
// before anything is sent upstream (the harness just waits for its answer); calls already upstream drain,
// or are frozen by the engine (a keep pause) and continue under the new weights after the resume, with the
// token where their version changed recorded (in-flight-versions.ts). The policy version in force when a
// call is sent upstream is recorded on that call.
import { timerDelay } from '../config/numeric-bounds.js';
import { type InFlightCall, InFlightCalls, type VersionChange } from './in-flight-versions.js';

export interface GenerationState {
  paused: boolean;
  /** The policy version calls sent upstream from now on are sampled with. */
  policyVersion: number;
  /** Calls sent upstream and not yet answered to the end. */
  inFlight: number;
  /** Calls waiting for a resume. */
  held: number;
  /** Epoch ms of the pause (when paused). */
  pausedAt: number | null;
}

export interface PauseResult {
  /** True when no call was upstream any more when the pause resolved. */
  drained: boolean;
  /** Calls still upstream when the pause resolved (0 when drained). */
  inFlight: number;
}

export interface GenerationControl {
  /**
   * Holds every new upstream call and resolves once the calls in flight have ended, or after
   * `drainTimeoutMs` (default 60 000) with `drained: false` — generation stays paused either way.
   */
  pause(options?: { drainTimeoutMs?: number }): Promise<PauseResult>;
  /**
   * Releases the held calls; `policyVersion` (never lower than the current one) applies to every call sent from
   * now on, `upstreamModel` (a LoRA adapter loaded in place) is the model name they are sent with.
   */
  resume(options?: { policyVersion?: number; upstreamModel?: string }): void;
  state(): GenerationState;
  /** The engine froze the calls in flight (keep pause): returns how many. */
  freeze(): number;
  /** Resolves once the frozen calls' upstream streams have been quiet for `quietMs` (false: still busy at `timeoutMs`). */
  quiet(quietMs: number, timeoutMs: number): Promise<boolean>;
  /**
   * Weights of `version` apply to tokens sampled from now on (call before the engine resumes): frozen calls get
   * their version boundary; with `weightsChanged`, calls that ran unpaused are marked unobservable.
   */
  changeVersion(version: number, weightsChanged: boolean): VersionChange;
  /** The model name calls are sent with when a resume set one (a LoRA adapter), else undefined. */
  upstreamModel(): string | undefined;
  /**
   * polar is about to ask the engine to abort (pause abort, sleep): the calls in flight whose answer is not
   * complete end engine_aborted, whatever their stream reports. Call right before the request goes out; returns how many.
   */
  markEngineAbort(): number;
}

/** Thrown by `resume` for a policy version lower than the one in force. */
export class PolicyVersionError extends Error {}

/** A held call whose client went away before the resume. */
export class HeldCallAbortedError extends Error {}

const DEFAULT_DRAIN_TIMEOUT_MS = 60_000;

/** Called when a call goes upstream and when it has ended (e.g. the gateway's busy meter). */
export interface GateHooks {
  onEnter?: () => void;
  onLeave?: () => void;
}

/** The gate every upstream model call passes through: `enter` before sending, `leave` when the answer ended. */
export class GenerationGate implements GenerationControl {
  #paused = false;
  #pausedAt: number | null = null;
  #policyVersion: number;
  #upstreamModel: string | undefined;
  /** The calls sent upstream and not yet ended: their number is the gate's in-flight count. */
  readonly #calls = new InFlightCalls();
  readonly #held = new Set<() => void>();
  readonly #drainWaiters = new Set<() => void>();

  readonly #hooks: GateHooks;

  constructor(policyVersion = 0, hooks: GateHooks = {}) {
    if (!Number.isSafeInteger(policyVersion) || policyVersion < 0) throw new PolicyVersionError(`policy version must be an integer from 0 to 2^53 - 1, got ${policyVersion}`);
    this.#policyVersion = policyVersion;
    this.#hooks = hooks;
  }

  /**
   * Waits while generation is paused, then counts `call` as in flight (until `leave(call)`; a keep pause
   * bounds its versions) and returns the policy version it is sampled with. Rejects with
   * HeldCallAbortedError when `signal` aborts while held.
   */
  async enter(call: InFlightCall, signal?: AbortSignal): Promise<number> {
    while (this.#paused) {
      await new Promise<void>((resolve, reject) => {
        const release = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = (): void => {
          this.#held.delete(release);
          reject(new HeldCallAbortedError('the client closed the connection while generation was paused'));
        };
        if (signal?.aborted) {
          onAbort();
          return;
        }
        this.#held.add(release);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
    this.#calls.add(call);
    this.#hooks.onEnter?.();
    return this.#policyVersion;
  }

  /** The call entered with `enter` has ended (answered, failed or aborted); a call not in flight is ignored. */
  leave(call: InFlightCall): void {
    if (!this.#calls.delete(call)) return;
    this.#hooks.onLeave?.();
    if (this.#calls.size === 0) {
      for (const wake of this.#drainWaiters) wake();
      this.#drainWaiters.clear();
    }
  }

  async pause(options: { drainTimeoutMs?: number } = {}): Promise<PauseResult> {
    if (!this.#paused) {
      this.#paused = true;
      this.#pausedAt = Date.now();
    }
    if (this.#calls.size === 0) return { drained: true, inFlight: 0 };
    const timeoutMs = timerDelay(options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#drainWaiters.delete(done);
        resolve();
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.#drainWaiters.add(done);
    });
    return { drained: this.#calls.size === 0, inFlight: this.#calls.size };
  }

  resume(options: { policyVersion?: number; upstreamModel?: string } = {}): void {
    const next = options.policyVersion ?? this.#policyVersion;
    if (!Number.isSafeInteger(next) || next < this.#policyVersion) {
      throw new PolicyVersionError(`policy version ${next} is not an integer (at most 2^53 - 1) >= the current version ${this.#policyVersion}`);
    }
    this.#policyVersion = next;
    if (options.upstreamModel !== undefined) this.#upstreamModel = options.upstreamModel;
    this.#calls.thaw();
    this.#paused = false;
    this.#pausedAt = null;
    const held = [...this.#held];
    this.#held.clear();
    for (const release of held) release();
  }

  state(): GenerationState {
    return { paused: this.#paused, policyVersion: this.#policyVersion, inFlight: this.#calls.size, held: this.#held.size, pausedAt: this.#pausedAt };
  }

  freeze(): number {
    return this.#calls.freeze();
  }

  quiet(quietMs: number, timeoutMs: number): Promise<boolean> {
    return this.#calls.quiet(quietMs, timeoutMs);
  }

  changeVersion(version: number, weightsChanged: boolean): VersionChange {
    return this.#calls.changeVersion(version, weightsChanged);
  }

  upstreamModel(): string | undefined {
    return this.#upstreamModel;
  }

  markEngineAbort(): number {
    return this.#calls.markEngineAbort();
  }
}
