// Pause and resume of generation around a trainer's weight sync, on the gateway and on the engine replicas
// (`polar serve`'s POST /v1/generation/pause and /resume). Pause: hold the gateway's new calls first, then
// pause every replica (keep: frozen with their KV cache; abort: ended), then optionally sleep once nothing is
// in flight. Resume: wake, load the new weights on every replica (all paused before any update; a failed
// update leaves everything paused), mark where the version changed in the calls a keep pause froze, resume
// every replica, release the gateway with the new version. One operation at a time; every step is an event
// and a row of the store's control log, and the state survives a restart.
import { UsageError } from '../errors.js';
import type { VersionChange } from '../gateway/in-flight-versions.js';
import type { EngineFleet } from '../upstream/control/engine-fleet.js';
import { type EnginePauseMode, featureOf, type WeightsKind, type WeightsUpdate } from '../upstream/engines/engine-control.js';
import type { EngineControlRepository } from '../store/engine-control-repository.js';
import type { EngineGeneration } from './engine-generation.js';

/** `hold`: the gateway holds new calls and the ones in flight drain (the engine is not touched). */
export type GenerationPauseMode = 'hold' | EnginePauseMode;

export const GENERATION_PAUSE_MODES: readonly GenerationPauseMode[] = ['hold', 'keep', 'abort'];

export interface PauseRequest {
  mode: GenerationPauseMode;
  /** hold: how long to wait for the calls in flight (abort: for the aborted calls to end). */
  drainTimeoutMs: number;
  /** Put the engines to sleep once nothing is in flight (vLLM /sleep?level=, SGLang /release_memory_occupation). */
  sleep?: 1 | 2;
}

export interface PauseOutcome {
  mode: GenerationPauseMode;
  drained: boolean;
  inFlight: number;
  /** Calls the engine froze in flight (keep). */
  frozen: number;
  sleeping: 1 | 2 | null;
  policyVersion: number;
}

export interface ResumeRequest {
  policyVersion?: number;
  weights?: WeightsUpdate;
}

export interface ResumeOutcome {
  policyVersion: number;
  weightsKind: WeightsKind | null;
  /** Calls in flight given a version boundary, and calls whose boundary could not be observed. */
  versionChange: VersionChange;
  /** The model name calls are sent with from now on (a LoRA adapter loaded in place), when a resume set one. */
  upstreamModel: string | null;
}

/** What a restart must know: whether the engines are paused or asleep, and what the last resume loaded. */
export interface GenerationControlState {
  mode: GenerationPauseMode | null;
  sleeping: 1 | 2 | null;
  pausedAt: number | null;
  weightsKind: WeightsKind | null;
  upstreamModel: string | null;
}

/** The event every step emits (`generation` on /v1/events). */
export interface GenerationStepEvent {
  paused: boolean;
  policyVersion: number;
  /** pause, resume, sleep, wake, update-weights. */
  step: 'pause' | 'resume' | 'sleep' | 'wake' | 'update-weights';
  mode: GenerationPauseMode | null;
  weightsKind: WeightsKind | null;
  sleeping: 1 | 2 | null;
}

/** A request that conflicts with the state (HTTP 409): e.g. sleeping while calls are still in flight. */
export class GenerationConflictError extends UsageError {
  override readonly code = 'generation-conflict';
}

export interface GenerationControllerOptions {
  gate: EngineGeneration;
  /** The engine replicas (made and probed on first use). */
  fleet: () => Promise<EngineFleet>;
  store?: EngineControlRepository;
  emit: (event: GenerationStepEvent) => void;
  /** Called with the new policy version once a resume released the gateway (the batch store persists it). */
  onVersion?: (version: number) => void;
  /** How long a keep pause waits for the frozen calls' streams to go quiet (default 150 ms, up to 5 s). */
  quietMs?: number;
}

const QUIET_MS = 150;
const QUIET_TIMEOUT_MS = 5_000;

export class GenerationController {
  private current: GenerationControlState;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: GenerationControllerOptions) {
    const saved = options.store?.state();
    this.current = {
      mode: (saved?.['mode'] as GenerationPauseMode | undefined) ?? null,
      sleeping: (saved?.['sleeping'] as 1 | 2 | undefined) ?? null,
      pausedAt: (saved?.['pausedAt'] as number | undefined) ?? null,
      weightsKind: (saved?.['weightsKind'] as WeightsKind | undefined) ?? null,
      upstreamModel: (saved?.['upstreamModel'] as string | undefined) ?? null,
    };
  }

  /** True when the engines were left paused or asleep (by a previous process too): the gateway must come up held. */
  get enginesHeld(): boolean {
    return this.current.mode === 'keep' || this.current.mode === 'abort' || this.current.sleeping !== null;
  }

  state(): GenerationControlState {
    return { ...this.current };
  }

  pause(request: PauseRequest): Promise<PauseOutcome> {
    return this.serially(() => this.doPause(request));
  }

  resume(request: ResumeRequest): Promise<ResumeOutcome> {
    return this.serially(() => this.doResume(request));
  }

  private async doPause(request: PauseRequest): Promise<PauseOutcome> {
    const { gate } = this.options;
    if (request.sleep !== undefined && request.mode === 'keep') {
      throw new UsageError('pause mode "keep" cannot sleep: a sleeping engine drops the KV cache the kept requests need', 'Pause with mode "hold" (after a full drain) or "abort" to sleep, or keep without sleep.');
    }
    const engineMode = request.mode === 'hold' ? null : request.mode;
    const fleet = engineMode !== null || request.sleep !== undefined ? await this.options.fleet() : undefined;
    if (engineMode !== null) fleet?.require(featureOf(engineMode), `pause mode "${engineMode}"`);
    if (request.sleep !== undefined) fleet?.require('sleep', 'sleep');

    // 1. The gateway holds new calls (and, for hold, waits for the calls in flight).
    let drain = await gate.pause(engineMode === null ? request.drainTimeoutMs : 0);
    this.save({ mode: this.current.mode === 'keep' || this.current.mode === 'abort' ? this.current.mode : 'hold', pausedAt: this.current.pausedAt ?? Date.now() });
    this.emit('pause', true);
    let frozen = 0;
    // 2. Every replica pauses: keep freezes the calls in flight, abort ends them.
    if (engineMode !== null && fleet !== undefined) {
      // Saved first: if a replica fails to pause, the others are paused, and the resume must resume them all.
      this.save({ mode: engineMode });
      // An aborted call is known by what polar did, not by its stream's finish reason (vLLM reports tool_calls
      // after streamed tool pieces, and no finish before the first token): marked before the abort goes out.
      if (engineMode === 'abort') gate.markEngineAbort();
      await fleet.pause(engineMode);
      if (engineMode === 'keep') {
        frozen = gate.freeze();
        // Tokens sampled before the pause may still be in transit: the boundary is taken once the streams are quiet.
        await gate.quiet(this.options.quietMs ?? QUIET_MS, QUIET_TIMEOUT_MS);
        drain = { drained: gate.state().inFlight === 0, inFlight: gate.state().inFlight };
      } else {
        drain = await gate.pause(request.drainTimeoutMs);
      }
      this.emit('pause', true);
    }
    // 3. Sleep, only once nothing is in flight.
    if (request.sleep !== undefined && fleet !== undefined) {
      if (!drain.drained) {
        throw new GenerationConflictError(
          `the engines were not put to sleep: ${drain.inFlight} model call(s) are still in flight after the drain (generation stays paused)`,
          'Pause again with sleep and a longer drain_timeout_ms, or with mode "abort".',
        );
      }
      // vLLM's /sleep aborts what still runs (mode abort); nothing should, after the drain above.
      gate.markEngineAbort();
      await fleet.sleep(request.sleep);
      this.save({ sleeping: request.sleep });
      this.emit('sleep', true);
    }
    return { mode: this.current.mode ?? request.mode, drained: drain.drained, inFlight: drain.inFlight, frozen, sleeping: this.current.sleeping, policyVersion: gate.policyVersion };
  }

  private async doResume(request: ResumeRequest): Promise<ResumeOutcome> {
    const { gate } = this.options;
    const current = gate.policyVersion;
    const version = request.policyVersion ?? current;
    if (version < current) throw new UsageError(`policy_version ${version} is older than the current ${current}`, 'Policy versions only grow.');
    const weights = request.weights;
    if (weights !== undefined && request.policyVersion === undefined) {
      throw new UsageError('a resume with weights needs the policy_version they are', 'Send {"policy_version": n, "weights": {…}} with n above the current version.');
    }
    if (weights !== undefined && version === current) {
      throw new UsageError(`new weights need a new policy version: ${version} is the current one`, `Send "policy_version": ${current + 1} (or higher).`);
    }
    if (this.current.sleeping === 2 && weights === undefined) {
      throw new UsageError('the engines slept at level 2 and hold no weights: resume with weights', 'Send "weights": {"kind":"reload"} (or disk, lora, pushed).');
    }
    const engineMode = this.current.mode === 'keep' || this.current.mode === 'abort' ? this.current.mode : null;
    const fleet = weights !== undefined || this.current.sleeping !== null || engineMode !== null ? await this.options.fleet() : undefined;
    if (weights !== undefined) fleet?.require(featureOf(weights.kind), `weights "${weights.kind}"`);
    // 1. Wake.
    if (this.current.sleeping !== null && fleet !== undefined) {
      await fleet.wake(undefined, true);
      this.save({ sleeping: null });
      this.emit('wake', true);
    }
    // 2. New weights on every replica (all are paused or held; a failure leaves everything paused).
    if (weights !== undefined && fleet !== undefined) {
      await fleet.updateWeights(weights, version);
      this.save({ weightsKind: weights.kind, ...(weights.kind === 'lora' ? { upstreamModel: weights.loraName } : {}) });
      this.emit('update-weights', true, weights.kind);
    }
    // 3. The calls a keep pause froze continue under the new weights: their boundary, before the engine resumes.
    const versionChange = gate.changeVersion(version, weights !== undefined);
    // 4. Every replica resumes, then the gateway releases the held calls with the new version.
    if (engineMode !== null && fleet !== undefined) await fleet.resume(undefined, true);
    const upstreamModel = weights?.kind === 'lora' ? weights.loraName : undefined;
    const released = gate.resume(version, upstreamModel);
    this.save({ mode: null, pausedAt: null });
    this.options.onVersion?.(released);
    this.emit('resume', false, weights?.kind ?? null);
    return { policyVersion: released, weightsKind: weights?.kind ?? null, versionChange, upstreamModel: this.current.upstreamModel };
  }

  private save(patch: Partial<GenerationControlState>): void {
    this.current = { ...this.current, ...patch };
    this.options.store?.saveState({ ...this.current });
  }

  private emit(step: GenerationStepEvent['step'], paused: boolean, weightsKind: WeightsKind | null = null): void {
    this.options.emit({ paused, policyVersion: this.options.gate.policyVersion, step, mode: this.current.mode, weightsKind, sleeping: this.current.sleeping });
  }

  private serially<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
