// Engine control over every replica of one model: each operation reaches every replica (at once) and
// resolves once all answered, so a caller that pauses, then updates, then resumes has every replica paused
// before any update and resumed only after all updates. A failure on any replica throws after all answered,
// leaving the others as they are (paused stays paused). Each step is reported (onStep) as it completes.
import { serverRoot } from '../engines/detect-engine.js';
import {
  type ControlCapabilities,
  type ControlFeature,
  ControlUnsupportedError,
  EngineControlError,
  type EngineLiveState,
  type EnginePauseMode,
  type WeightsKind,
  type WeightsUpdate,
} from '../engines/engine-control.js';
import { engineFor } from '../engines/engine-for.js';
import type { EngineName } from '../engines/engine-name.js';
import { ENGINE_LABELS } from '../engines/engine-name.js';

export interface FleetReplica {
  /** OpenAI base URL (`…/v1`). */
  url: string;
  engine: EngineName;
  /** What it offers, when already known (a preflight's `profile.control`): probe() does not ask again. */
  capabilities?: ControlCapabilities;
}

/** What polar did to one replica, and what it offers. */
export interface ReplicaControlState {
  url: string;
  engine: EngineName;
  /** The engine-side pause polar applied and has not resumed (null: not paused by polar). */
  paused: EnginePauseMode | null;
  /** The sleep level polar put it in (null: awake). */
  sleeping: 1 | 2 | null;
  /** The policy version of the weights polar last loaded or announced into it (null: none since start). */
  weightsVersion: number | null;
  weightsKind: WeightsKind | null;
  /** What the probe found (null until probed). */
  capabilities: ControlCapabilities | null;
  /** The last failed control request on it, or null. */
  lastError: string | null;
}

export type ControlAction = 'pause' | 'resume' | 'sleep' | 'wake' | 'update-weights';

/** One control request to one replica, as it completed. */
export interface ControlStep {
  action: ControlAction;
  replica: string;
  /** Epoch ms when it completed. */
  at: number;
  ok: boolean;
  /** The error, or caveats the engine's answer left (a prefix cache it kept). */
  detail: string | null;
  mode?: EnginePauseMode;
  level?: 1 | 2;
  weightsKind?: WeightsKind;
  version?: number;
}

export interface EngineFleetOptions {
  onStep?: (step: ControlStep) => void;
  /** Upper bound of one control request in ms (default: pause/resume 120 s, sleep/wake 300 s, weights 900 s). */
  timeoutMs?: Partial<Record<ControlAction, number>>;
}

const TIMEOUTS: Record<ControlAction, number> = { pause: 120_000, resume: 120_000, sleep: 300_000, wake: 300_000, 'update-weights': 900_000 };

export class EngineFleet {
  private readonly states: ReplicaControlState[];

  constructor(
    replicas: readonly FleetReplica[],
    private readonly options: EngineFleetOptions = {},
  ) {
    this.states = replicas.map(({ url, engine, capabilities }) => ({ url, engine, paused: null, sleeping: null, weightsVersion: null, weightsKind: null, capabilities: capabilities ?? null, lastError: null }));
  }

  get replicas(): readonly ReplicaControlState[] {
    return this.states;
  }

  /**
   * Learns the control features (no side effects) of every replica not known yet; kept for `require`. Throws
   * EngineControlError (exit 5) for a replica that does not answer.
   */
  async probe(signal?: AbortSignal): Promise<ControlCapabilities[]> {
    const found = await Promise.all(
      this.states.map(async (state) => {
        if (state.capabilities !== null) return state.capabilities;
        const bound = signal ? AbortSignal.any([signal, AbortSignal.timeout(15_000)]) : AbortSignal.timeout(15_000);
        state.capabilities = await engineFor(state.engine).control.probe(serverRoot(state.url), bound);
        return state.capabilities;
      }),
    );
    const down = this.states.find((state) => state.capabilities?.reachable === false);
    if (down !== undefined) {
      throw new EngineControlError(`the ${ENGINE_LABELS[down.engine]} replica ${down.url} does not answer`, 'Start the server (or fix --upstream) and try again.', down.url);
    }
    return found;
  }

  /**
   * Throws ControlUnsupportedError when a replica lacks `feature` (`no`; `unknown` is tried), with the fix.
   * Replicas never probed are not judged.
   */
  require(feature: ControlFeature, what: string): void {
    const lacking = this.states.filter((state) => state.capabilities?.features[feature].available === 'no');
    if (lacking.length === 0) return;
    const first = lacking[0] as ReplicaControlState;
    const support = first.capabilities!.features[feature];
    const where = lacking.map((state) => `${state.url} (${ENGINE_LABELS[state.engine]})`).join(', ');
    throw new ControlUnsupportedError(`${what} needs ${feature}, which ${where} ${lacking.length === 1 ? 'does' : 'do'} not offer: ${support.detail}`, `To enable it, ${support.fix ?? 'see the preflight (polar doctor)'}.`, feature, lacking.map((state) => state.url));
  }

  pause(mode: EnginePauseMode, signal?: AbortSignal): Promise<void> {
    return this.each('pause', { mode }, signal, async (state, root, bound) => {
      await engineFor(state.engine).control.pause(root, mode, bound);
      state.paused = mode;
      return [];
    });
  }

  /** Resumes the replicas polar paused (all of them with `all`). */
  resume(signal?: AbortSignal, all = false): Promise<void> {
    return this.each('resume', {}, signal, async (state, root, bound) => {
      await engineFor(state.engine).control.resume(root, bound);
      state.paused = null;
      return [];
    }, (state) => all || state.paused !== null);
  }

  sleep(level: 1 | 2, signal?: AbortSignal): Promise<void> {
    return this.each('sleep', { level }, signal, async (state, root, bound) => {
      await engineFor(state.engine).control.sleep(root, level, bound);
      state.sleeping = level;
      return [];
    });
  }

  /** Wakes the replicas polar put to sleep (all of them with `all`). */
  wake(signal?: AbortSignal, all = false): Promise<void> {
    return this.each('wake', {}, signal, async (state, root, bound) => {
      await engineFor(state.engine).control.wake(root, bound);
      state.sleeping = null;
      return [];
    }, (state) => all || state.sleeping !== null);
  }

  updateWeights(update: WeightsUpdate, version: number, signal?: AbortSignal): Promise<void> {
    return this.each('update-weights', { weightsKind: update.kind, version }, signal, async (state, root, bound) => {
      const caveats = await engineFor(state.engine).control.updateWeights(root, update, version, bound);
      state.weightsVersion = version;
      state.weightsKind = update.kind;
      return caveats;
    });
  }

  /** What each server says of itself now (vLLM: paused, sleeping; SGLang: its weight_version label). */
  live(signal?: AbortSignal): Promise<EngineLiveState[]> {
    return Promise.all(this.states.map((state) => engineFor(state.engine).control.state(serverRoot(state.url), signal ?? AbortSignal.timeout(10_000))));
  }

  /** Sets what polar knows of a replica after a restart (the store's control state). */
  restore(url: string, known: Partial<Pick<ReplicaControlState, 'paused' | 'sleeping' | 'weightsVersion' | 'weightsKind'>>): void {
    const state = this.states.find((candidate) => candidate.url === url);
    if (state !== undefined) Object.assign(state, known);
  }

  private async each(
    action: ControlAction,
    facts: Pick<ControlStep, 'mode' | 'level' | 'weightsKind' | 'version'>,
    signal: AbortSignal | undefined,
    run: (state: ReplicaControlState, root: URL, signal: AbortSignal) => Promise<string[]>,
    include: (state: ReplicaControlState) => boolean = () => true,
  ): Promise<void> {
    const timeout = this.options.timeoutMs?.[action] ?? TIMEOUTS[action];
    const outcomes = await Promise.allSettled(
      this.states.filter(include).map(async (state) => {
        const bound = signal ? AbortSignal.any([signal, AbortSignal.timeout(timeout)]) : AbortSignal.timeout(timeout);
        try {
          const caveats = await run(state, serverRoot(state.url), bound);
          state.lastError = null;
          this.options.onStep?.({ action, replica: state.url, at: Date.now(), ok: true, detail: caveats.length > 0 ? caveats.join('; ') : null, ...facts });
        } catch (error) {
          state.lastError = (error as Error).message;
          this.options.onStep?.({ action, replica: state.url, at: Date.now(), ok: false, detail: (error as Error).message, ...facts });
          throw error;
        }
      }),
    );
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }
}
