// The long-lived rollout scheduler behind `polar serve`: accepts batches while it runs, runs each as a
// rollout run (runRollout / resumeRollout: the same pipeline, capture, retries and stage-granular resume as
// `polar rollout`), records completed groups in completion order, and applies pause / resume and policy
// versions to every batch gateway. Everything is in the store, so a restarted engine resumes every batch.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { timerDelay } from '../config/numeric-bounds.js';
import { CancelledError, ConfigError, describeError, NotFoundError, UsageError } from '../errors.js';
import { activityBetween, type ActivitySnapshot } from '../gateway/activity-meter.js';
import type { Gateway } from '../gateway/create-gateway.js';
import type { ReplicaStatus } from '../gateway/replica-pool.js';
import type { EngineSnapshot } from '../upstream/metrics/engine-snapshot.js';
import { isHarnessInstalled } from '../harness/is-harness-installed.js';
import { loadHarness } from '../harness/load-harness-manifest.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import type { BatchRow, BatchStatus, TailDecision } from '../store/batch-repository.js';
import type { Store } from '../store/open-store.js';
import { availableParallelism } from 'node:os';
import { DEFAULT_ROLLOUT_SAMPLING } from '../config/sampling-policy.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import { prepareRolloutUpstream } from './prepare-rollout-upstream.js';
import { defaultPipelineSizes } from './run-pipeline.js';
import { SessionScheduler, type SchedulerAdmissionState } from './session-scheduler.js';
import { agentSlotsFor } from './admission/create-session-admission.js';
import type { SessionStage } from '../store/run-repository.js';
import { batchCapture, batchSampling, checkBatchRequest, requestHash, type BatchRequest } from './batch-request.js';
import { type CaptureMode, type CaptureState, refuseUnavailableCapture, type UpstreamCapture, upstreamCapture } from './batch-capture.js';
import { cutTail, decideTail, loadBatchTail, type BatchTail } from './batch-tail.js';
import { EngineGeneration, type EngineGenerationState } from './engine-generation.js';
import { GenerationConflictError, GenerationController, type GenerationControlState, type GenerationStepEvent, type PauseOutcome, type PauseRequest, type ResumeOutcome, type ResumeRequest } from './generation-controller.js';
import { isSimulatorSpec } from './start-rollout-upstream.js';
import type { EngineFleet, ReplicaControlState } from '../upstream/control/engine-fleet.js';
import { type FleetReplicaSpec, openEngineFleet } from '../upstream/control/open-engine-fleet.js';
import type { RolloutEvent } from './rollout-events.js';
import type { HostPool, HostStatus } from './hosts/host-pool.js';
import { engineMetricsSettings, remoteCapacity, resumeRollout, runRollout, type RolloutContext, type RolloutOptions, type RolloutResult } from './run-rollout.js';

export type EngineEvent =
  | { type: 'batch'; batchId: string; status: BatchStatus; reason: string | null }
  | { type: 'session'; batchId: string; event: RolloutEvent }
  | { type: 'group'; batchId: string; seq: number; instanceId: string }
  /** `target_groups` groups of the batch are complete (tail cancel or carry): the trainer may step. */
  | { type: 'target_reached'; batchId: string; targetGroups: number; tail: 'cancel' | 'carry'; complete: number; cancelled: number; carried: number }
  | ({ type: 'generation' } & GenerationStepEvent);

export type EngineListener = (event: EngineEvent) => void;

/** Runs one batch's run: new (`resume` false) or continued after a restart. Tests inject a Docker-free one. */
export type BatchExecutor = (start: { runName: string; options: RolloutOptions; resume: boolean }, context: RolloutContext) => Promise<RolloutResult>;

export interface RolloutEngineOptions {
  store: Store;
  runtime: ContainerRuntime;
  cacheDir: string;
  /** Upstream base URLs or `sim:<policy>`; each batch run uses the first (replica routing lives in the gateway). */
  upstreams: string[];
  /** Where submitted task rows are written as the batch's dataset file. */
  workDir: string;
  /** Rollout options every batch starts from (timeout, concurrency, limits, evaluate, model, …). */
  defaults?: Partial<RolloutOptions>;
  /** Batches running at once (default 2): the next batch starts while the previous one's tail finishes. */
  maxBatches?: number;
  /** Refuse to start sessions of batches more than this many policy versions behind (they wait). */
  maxStaleness?: number;
  /** The policy version at start (default: the last one resumed with on this db, else the highest batch's, else 0). */
  policyVersion?: number;
  /** Replicas and their health for /v1/status (default: one entry per upstream). */
  replicas?: () => unknown[];
  /** The engines' metrics for /v1/status (default: the shared scheduler's poller); tests with a fake executor inject one. */
  engineStatus?: () => EngineSnapshot | null;
  executor?: BatchExecutor;
  /** Refuse batches whose harness bundle is not installed (default true; contract tests with a fake executor turn it off). */
  requireInstalled?: boolean;
  /**
   * What each upstream offers of the capture modes (default: the shared scheduler's preflight, run once); tests
   * with a fake executor inject one.
   */
  captureProbe?: () => Promise<UpstreamCapture[]>;
  /** The Docker hosts (--hosts, admitted) every batch's sessions are placed on; default the local engine. The caller closes it. */
  hosts?: HostPool;
}

export interface SubmitResult {
  batch: BatchRow;
  /** False when an earlier submit with the same idempotency key made it. */
  created: boolean;
}

export interface EngineStatus {
  batches: Record<BatchStatus, number>;
  /** Sessions of unfinished batches per pipeline stage. */
  stages: Record<SessionStage, number>;
  generation: EngineGenerationState;
  /** Upstream busy fraction of the live batch gateways since each started (null when none runs). */
  modelBusyFraction: number | null;
  modelCallsInFlight: number;
  replicas: unknown[];
  /** Every replica's engine metrics (null until the shared scheduler exists, or with a test executor). */
  engine: EngineSnapshot | null;
  /** The admission gate in front of the agent stage (null until the shared scheduler exists). */
  admission: SchedulerAdmissionState | null;
  /** Engine control: the pause mode and sleep polar applied, and each replica's control state (null until probed). */
  control: GenerationControlState & { replicas: readonly ReplicaControlState[] | null };
  /** The default capture mode, the token-in tool format, and what each upstream offers (once preflighted). */
  capture: CaptureState;
  /** Each Docker host: slots, sessions, images, health, last error (one entry, `local`, without --hosts). */
  hosts: HostStatus[];
}

interface ActiveBatch {
  controller: AbortController;
  cancelReason: string | null;
  /** The batch reached its target with tail cancel: its run was stopped to cut the tail. */
  tailCut: boolean;
  /** Its target, tail and the decision taken (loaded from its row when the batch is activated). */
  tail: BatchTail;
  /** Its run's id, once the run exists. */
  runId: number | undefined;
  gateway?: { gateway: Gateway; start: ActivitySnapshot };
  done: Promise<void>;
}

const STAGES: readonly SessionStage[] = ['queued', 'init', 'ready', 'running', 'post', 'done'];

export class RolloutEngine {
  private readonly listeners = new Set<EngineListener>();
  private readonly active = new Map<string, ActiveBatch>();
  private readonly gate: EngineGeneration;
  private readonly controller: GenerationController;
  /** The engine replicas under control, made (and probed) on first use. */
  private fleetPromise: Promise<EngineFleet> | undefined;
  private fleetReady: EngineFleet | undefined;
  private readonly deadlines = new Map<string, NodeJS.Timeout>();
  private closing = false;
  /** The one scheduler (gateway, stage pools) every batch runs in; made when the first batch starts. */
  private shared: Promise<SessionScheduler> | undefined;
  private scheduler: { scheduler: SessionScheduler; start: ActivitySnapshot } | undefined;
  /** Every batch's tasks, for a simulated oracle upstream (it solves the tasks it is given). */
  private readonly tasks: SwebenchRecord[] = [];
  /** What each upstream offers of the capture modes, once a preflight found it. */
  private offered: UpstreamCapture[] | undefined;

  constructor(private readonly options: RolloutEngineOptions) {
    if (options.upstreams.length === 0) throw new UsageError('polar serve needs an upstream', 'e.g. --upstream http://127.0.0.1:8000/v1 or --upstream sim:oracle');
    const stored = options.store.batches.policyVersion() ?? options.store.batches.list().reduce((max, batch) => Math.max(max, batch.policyVersion), 0);
    if (options.policyVersion === undefined) checkStoredPolicyVersion(stored, options.store.path);
    // After a restart, calls keep naming a LoRA adapter a resume loaded in place.
    const lora = options.store.engineControl.state()?.['upstreamModel'];
    this.gate = new EngineGeneration(options.policyVersion ?? stored, options.maxStaleness, typeof lora === 'string' ? lora : undefined);
    options.store.batches.setPolicyVersion(this.gate.policyVersion);
    this.controller = new GenerationController({
      gate: this.gate,
      fleet: () => this.engineFleet(),
      store: options.store.engineControl,
      emit: (event) => this.emit({ type: 'generation', ...event }),
      onVersion: (version) => {
        options.store.batches.setPolicyVersion(version);
        this.schedule();
      },
    });
    // The engines were left paused or asleep by a previous process: calls stay held until a resume.
    if (this.controller.enginesHeld) void this.gate.pause(0);
    mkdirSync(options.workDir, { recursive: true });
  }

  on(listener: EngineListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resumes every batch a previous process left unfinished (same ids), then keeps scheduling. */
  start(): void {
    for (const batch of this.options.store.batches.unfinished()) this.armDeadline(batch);
    this.schedule();
    // What the engines offer shows in /v1/status from the start (a simulator upstream: once it runs).
    if (!this.options.upstreams.some(isSimulatorSpec)) void this.engineFleet().catch(() => undefined);
  }

  /**
   * Stores a batch and queues it; a repeated idempotency key with the same body returns the first batch. A batch
   * whose capture mode an upstream cannot serve is refused (CaptureUnavailableError) and nothing is stored.
   */
  async submit(request: BatchRequest): Promise<SubmitResult> {
    const { store } = this.options;
    const hash = requestHash(request);
    const earlier = this.earlierSubmit(request, hash);
    if (earlier !== undefined) return earlier;
    checkBatchRequest(request);
    if (this.options.requireInstalled !== false) {
      const installed = isHarnessInstalled(loadHarness(request.harness), this.options.cacheDir);
      if (!installed.installed) throw new UsageError(`harness ${request.harness} is not installed on the server (${installed.reason})`, `Install it once with: polar harness install ${request.harness}`);
    }
    const capture = request.capture ?? this.defaultCapture;
    await this.checkCapture(capture);
    // The same key may have been submitted again while the capture was checked.
    const meanwhile = this.earlierSubmit(request, hash);
    if (meanwhile !== undefined) return meanwhile;
    const id = `b_${randomBytes(8).toString('hex')}`;
    const batch = store.batches.create({
      id,
      runName: `serve-${id}`,
      idempotencyKey: request.idempotencyKey ?? null,
      requestHash: hash,
      // Resolved: a restart with another default keeps the batch's mode.
      request: { ...request, capture } as unknown as Record<string, unknown>,
      policyVersion: request.policyVersion ?? this.gate.policyVersion,
      callbackUrl: request.callbackUrl ?? null,
    });
    this.emit({ type: 'batch', batchId: id, status: 'queued', reason: null });
    this.armDeadline(batch);
    this.schedule();
    return { batch, created: true };
  }

  /** The batch an earlier submit with this idempotency key made (IdempotencyConflictError for another body). */
  private earlierSubmit(request: BatchRequest, hash: string): SubmitResult | undefined {
    if (request.idempotencyKey === undefined) return undefined;
    const earlier = this.options.store.batches.byIdempotencyKey(request.idempotencyKey);
    if (earlier === undefined) return undefined;
    if (earlier.requestHash !== hash) throw new IdempotencyConflictError(request.idempotencyKey, earlier.id);
    return { batch: earlier, created: false };
  }

  /** The server's capture mode (`--token-in`: token_in), for batches that do not name one. */
  get defaultCapture(): CaptureMode {
    return this.options.defaults?.tokenIn === true ? 'token_in' : 'chat';
  }

  /**
   * Refuses a capture mode an upstream cannot serve, from what its preflight found (run once, at the first batch
   * that needs it). A chat batch on a chat server needs nothing beyond the preflight that starts every batch. An
   * upstream that cannot be preflighted refuses nothing here: the batch fails at its start with the preflight's
   * reason, as every batch then does.
   */
  private async checkCapture(mode: CaptureMode): Promise<void> {
    if (mode === 'chat' && this.defaultCapture === 'chat') return;
    let offered: UpstreamCapture[];
    try {
      offered = this.options.captureProbe !== undefined ? await this.options.captureProbe() : (await this.sharedScheduler()).upstream.profiles.map(upstreamCapture);
    } catch {
      return;
    }
    this.offered = offered;
    refuseUnavailableCapture(mode, offered);
  }

  /** For /v1/status: what each upstream offers (null entries until preflighted) and the token-in tool format. */
  private captureState(): CaptureState {
    const profiles = this.scheduler?.scheduler.upstream.profiles;
    const offered = profiles?.map(upstreamCapture) ?? this.offered;
    const toolFormat = this.options.defaults?.toolFormat ?? profiles?.[0]?.toolFormat ?? (profiles !== undefined ? 'hermes' : null);
    return {
      default: this.defaultCapture,
      toolFormat,
      upstreams: this.options.upstreams.map((url, index) => {
        const found = offered?.[index];
        return found === undefined ? { probed: false, url } : { probed: true, ...found };
      }),
    };
  }

  /** Cancels a batch: queued sessions dropped, running ones stopped (their containers removed). */
  async cancel(id: string, reason = 'cancelled by the client'): Promise<BatchRow> {
    const { store } = this.options;
    const batch = store.batches.get(id);
    if (batch === undefined) throw new NotFoundError(`no batch ${id}`, 'List batches with GET /v1/rollouts');
    if (batch.status === 'finished' || batch.status === 'cancelled' || batch.status === 'failed') return batch;
    const running = this.active.get(id);
    if (running !== undefined) {
      running.cancelReason = reason;
      running.controller.abort(new CancelledError(`batch ${id} ${reason}`));
      await running.done;
    } else {
      this.cancelStored(batch, reason);
    }
    return store.batches.get(id) ?? batch;
  }

  /** Holds new calls, pauses the engines (keep / abort) and optionally puts them to sleep (generation-controller.ts). */
  pause(request: PauseRequest): Promise<PauseOutcome> {
    return this.controller.pause(request);
  }

  /** Wakes the engines, loads new weights on every replica, resumes them and releases the calls with the version. */
  resume(request: ResumeRequest = {}): Promise<ResumeOutcome> {
    return this.controller.resume(request);
  }

  generation(): EngineGenerationState {
    return this.gate.state();
  }

  status(): EngineStatus {
    const { store } = this.options;
    const batches = { queued: 0, running: 0, finished: 0, cancelled: 0, failed: 0 } as Record<BatchStatus, number>;
    const stages = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<SessionStage, number>;
    for (const batch of store.batches.list()) {
      batches[batch.status] += 1;
      if (batch.status !== 'queued' && batch.status !== 'running') continue;
      const run = store.runs.get(batch.runName);
      if (run === undefined) {
        stages.queued += this.plannedSessions(batch);
        continue;
      }
      for (const [stage, n] of Object.entries(store.runs.stageCounts(run.id)) as [SessionStage, number][]) stages[stage] += n;
    }
    let busy: number | null = null;
    const inFlight = this.gate.state().inFlight;
    if (this.scheduler !== undefined) busy = activityBetween(this.scheduler.start, this.scheduler.scheduler.gateway.activity()).busyFraction;
    for (const { gateway } of this.active.values()) {
      if (gateway === undefined) continue;
      const now = gateway.gateway.activity();
      const activity = activityBetween(gateway.start, now);
      busy = Math.max(busy ?? 0, activity.busyFraction);
    }
    const replicas = this.options.replicas?.() ?? this.scheduler?.scheduler.gateway.replicas() ?? this.replicaStatuses(inFlight);
    const engine = this.options.engineStatus?.() ?? this.scheduler?.scheduler.engineMetrics.snapshot() ?? null;
    const admission = this.scheduler?.scheduler.admissionState() ?? null;
    const control = { ...this.controller.state(), replicas: this.fleetReady?.replicas ?? null };
    const hosts = (this.options.hosts ?? this.scheduler?.scheduler.hosts)?.status() ?? [];
    return { batches, stages, generation: this.gate.state(), modelBusyFraction: busy, modelCallsInFlight: inFlight, replicas, engine, admission, control, capture: this.captureState(), hosts };
  }

  /**
   * The engine replicas polar controls, probed once: the configured URLs (family from --engine, else asked of
   * the server), or, for simulator upstreams, the ones the shared scheduler started.
   */
  private engineFleet(): Promise<EngineFleet> {
    this.fleetPromise ??= (async () => {
      let replicas: FleetReplicaSpec[];
      if (this.options.upstreams.some(isSimulatorSpec)) {
        if (this.options.executor !== undefined) throw new GenerationConflictError('engine control needs the simulator upstream started, and this engine runs no shared scheduler', 'Give the simulators as URLs (polar sim).');
        // Started and preflighted just now: what each offers is the preflight's finding.
        const { upstream } = await this.sharedScheduler();
        replicas = upstream.urls.map((url, index) => {
          const profile = upstream.profiles[index];
          return { url, engine: profile?.engine ?? 'vllm', ...(profile?.control !== undefined ? { capabilities: profile.control } : {}) };
        });
      } else {
        const engine = this.options.defaults?.engine;
        replicas = this.options.upstreams.map((url) => ({ url, ...(engine !== undefined ? { engine } : {}) }));
      }
      const fleet = await openEngineFleet(replicas, { onStep: (step) => this.options.store.engineControl.append(step) });
      this.fleetReady = fleet;
      return fleet;
    })();
    const attempt = this.fleetPromise;
    attempt.catch(() => {
      if (this.fleetPromise === attempt) this.fleetPromise = undefined;
    });
    return attempt;
  }

  /** Stops every running batch (they stay resumable: status running), waits for them, closes the scheduler. */
  async close(): Promise<void> {
    this.closing = true;
    for (const timer of this.deadlines.values()) clearTimeout(timer);
    for (const batch of this.active.values()) batch.controller.abort(new CancelledError('polar serve is shutting down'));
    await Promise.all([...this.active.values()].map((batch) => batch.done));
    const shared = await this.shared?.catch(() => undefined);
    await shared?.close();
  }

  /**
   * The scheduler all batches share: the upstream replicas started and preflighted once (with the default
   * sampling), one gateway whose pause/resume and policy version are the engine's. A failed preflight fails
   * the batch that asked; the next batch tries again.
   */
  private sharedScheduler(): Promise<SessionScheduler> {
    this.shared ??= (async () => {
      const defaults = this.options.defaults ?? {};
      const [first, ...replicas] = this.options.upstreams as [string, ...string[]];
      const upstream = await prepareRolloutUpstream(
        {
          upstream: first,
          ...(replicas.length > 0 ? { replicas } : {}),
          sampling: defaults.sampling ?? DEFAULT_ROLLOUT_SAMPLING,
          ...(defaults.model !== undefined ? { model: defaults.model } : {}),
          ...(defaults.engine !== undefined ? { engine: defaults.engine } : {}),
          // --token-in: an SGLang without chat ids is usable (every call through /generate); chat batches are then refused.
          ...(defaults.tokenIn === true ? { tokenIn: true } : {}),
          ...(defaults.allowLogprobMismatch !== undefined ? { allowLogprobMismatch: defaults.allowLogprobMismatch } : {}),
          ...(defaults.eosTokenIds !== undefined ? { eosTokenIds: defaults.eosTokenIds } : {}),
          ...(defaults.preflightTimeoutSeconds !== undefined ? { timeoutMs: defaults.preflightTimeoutSeconds * 1000 } : {}),
          tasksArrive: true,
        },
        this.tasks,
      );
      try {
        const scheduler = await SessionScheduler.start({
          store: this.options.store,
          runtime: this.options.runtime,
          upstream,
          tasks: this.tasks,
          sizes: { ...defaultPipelineSizes(agentSlotsFor(defaults.admission, defaults.concurrency, undefined, remoteCapacity(this.options.hosts)), availableParallelism()), ...defaults.pipeline },
          ...(defaults.admission !== undefined ? { admission: defaults.admission } : {}),
          ...(defaults.upstreamTimeoutSeconds !== undefined ? { upstreamTimeoutMs: defaults.upstreamTimeoutSeconds * 1000 } : {}),
          policyVersion: this.gate.policyVersion,
          engineMetrics: engineMetricsSettings(defaults),
          ...(this.options.hosts !== undefined ? { hosts: this.options.hosts } : {}),
        });
        this.gate.attach(scheduler.gateway);
        this.scheduler = { scheduler, start: scheduler.gateway.activity() };
        // Simulator upstreams have URLs now: what they offer shows in /v1/status.
        if (this.options.upstreams.some(isSimulatorSpec)) setImmediate(() => void this.engineFleet().catch(() => undefined));
        return scheduler;
      } catch (error) {
        await upstream.close();
        throw error;
      }
    })();
    const attempt = this.shared;
    attempt.catch(() => {
      if (this.shared === attempt) this.shared = undefined;
    });
    return attempt;
  }

  private plannedSessions(batch: BatchRow): number {
    const request = batch.request as unknown as BatchRequest;
    return (request.tasks?.length ?? request.instanceIds?.length ?? 0) * (request.samples ?? 1);
  }

  private emit(event: EngineEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private armDeadline(batch: BatchRow): void {
    const seconds = (batch.request as unknown as BatchRequest).deadlineSeconds;
    if (seconds === undefined || this.closing) return;
    const left = Math.max(0, batch.createdAt + seconds * 1000 - Date.now());
    const timer = setTimeout(() => void this.cancel(batch.id, `passed its deadline of ${seconds}s`).catch(() => undefined), timerDelay(left));
    timer.unref();
    this.deadlines.set(batch.id, timer);
  }

  /** Starts queued (and resumable running) batches, oldest first, up to maxBatches at once. */
  private schedule(): void {
    if (this.closing) return;
    const max = this.options.maxBatches ?? 2;
    // A batch carrying its tail past its target no longer holds a place: the trainer stepped on it.
    const counted = () => [...this.active.values()].filter((entry) => entry.tail.decision?.policy !== 'carry').length;
    for (const batch of this.options.store.batches.unfinished()) {
      if (this.active.has(batch.id)) continue;
      if (counted() >= max) return;
      this.launch(batch);
    }
  }

  private launch(batch: BatchRow): void {
    const controller = new AbortController();
    const entry: ActiveBatch = { controller, cancelReason: null, tailCut: false, tail: loadBatchTail(batch), runId: undefined, done: Promise.resolve() };
    this.active.set(batch.id, entry);
    entry.done = this.runBatch(batch, entry).finally(() => {
      this.active.delete(batch.id);
      clearTimeout(this.deadlines.get(batch.id));
      this.schedule();
    });
  }

  private async runBatch(batch: BatchRow, entry: ActiveBatch): Promise<void> {
    const { store } = this.options;
    store.batches.setStatus(batch.id, 'running');
    this.emit({ type: 'batch', batchId: batch.id, status: 'running', reason: null });
    const signal = entry.controller.signal;
    let detach: (() => void) | undefined;
    const context: RolloutContext = {
      runtime: this.options.runtime,
      store,
      cacheDir: this.options.cacheDir,
      signal,
      metricsIntervalMs: 0,
      policyVersion: this.gate.policyVersion,
      emit: (event) => this.onRolloutEvent(batch, event),
      onGateway: (gateway) => {
        entry.gateway = { gateway, start: gateway.activity() };
        detach = this.gate.attach(gateway);
      },
      beforeSessionStart: () => this.gate.admit(batch.policyVersion, signal),
    };
    let status: BatchStatus;
    let reason: string | null = null;
    // A restart after the tail was cut (or with the target reached meanwhile): nothing more runs.
    const resume = this.runIdOf(batch, entry) !== undefined;
    if (resume) this.recordGroups(batch, entry);
    const decided = resume ? this.reachTarget(batch, entry) : null;
    if (decided?.policy === 'cancel') {
      this.finishTail(batch, entry, decided);
      return;
    }
    try {
      if (this.options.executor === undefined) context.scheduler = await this.sharedScheduler();
      const executor = this.options.executor ?? defaultExecutor;
      const result = await executor({ runName: batch.runName, options: this.rolloutOptions(batch), resume }, context);
      status = result.run.status === 'finished' ? 'finished' : result.run.status === 'failed' ? 'failed' : 'running';
      reason = result.run.statusReason;
    } catch (error) {
      status = 'failed';
      // With the hint: how to fix it (e.g. a sampling the server's raw logprobs cannot represent).
      reason = describeError(error);
    } finally {
      detach?.();
    }
    this.recordGroups(batch, entry);
    const decision = entry.tailCut ? this.reachTarget(batch, entry) : null;
    if (decision?.policy === 'cancel') {
      this.finishTail(batch, entry, decision);
      return;
    }
    if (entry.cancelReason !== null) {
      this.cancelStored(store.batches.get(batch.id) ?? batch, entry.cancelReason);
      return;
    }
    if (this.closing && status === 'running') return; // resumed by the next start
    if (status === 'running') status = 'failed';
    store.batches.setStatus(batch.id, status, reason);
    this.emit({ type: 'batch', batchId: batch.id, status, reason });
  }

  /** Marks every session that has not ended cancelled and the batch cancelled. */
  /** Replicas as the live batch gateways see them (summed per replica), else the configured upstreams. */
  private replicaStatuses(inFlight: number): unknown[] {
    const byUrl = new Map<string, ReplicaStatus>();
    for (const { gateway } of this.active.values()) {
      for (const replica of gateway?.gateway.replicas() ?? []) {
        const seen = byUrl.get(replica.url);
        byUrl.set(replica.url, seen === undefined ? { ...replica } : {
          ...seen,
          healthy: seen.healthy && replica.healthy,
          sessions: seen.sessions + replica.sessions,
          inFlight: seen.inFlight + replica.inFlight,
          calls: seen.calls + replica.calls,
          lastError: replica.lastError ?? seen.lastError,
          downSince: seen.downSince ?? replica.downSince,
        });
      }
    }
    if (byUrl.size > 0) return [...byUrl.values()];
    return this.options.upstreams.map((url, index) => ({ url, healthy: true, inFlight: index === 0 ? inFlight : 0 }));
  }

  private cancelStored(batch: BatchRow, reason: string): void {
    const { store } = this.options;
    const run = store.runs.get(batch.runName);
    if (run !== undefined) {
      for (const session of store.runs.iterateSessionSummaries(run.id)) {
        if (session.stage !== 'done' || session.status === null) store.runs.finishSession(session.id, { status: 'cancelled', reason: 'interrupted', detail: reason });
      }
    }
    store.batches.setStatus(batch.id, 'cancelled', reason);
    this.emit({ type: 'batch', batchId: batch.id, status: 'cancelled', reason });
  }

  private onRolloutEvent(batch: BatchRow, event: RolloutEvent): void {
    if (event.type !== 'session-stage' && event.type !== 'session-end' && event.type !== 'run-start' && event.type !== 'run-end' && event.type !== 'run-failed') return;
    this.emit({ type: 'session', batchId: batch.id, event });
    if (event.type !== 'session-end') return;
    // The hot path of a batch: its row (request, tasks inline) is not read again, only counts are.
    const entry = this.active.get(batch.id);
    this.recordGroups(batch, entry, event.instanceId);
    if (entry !== undefined) this.reachTarget(batch, entry);
  }

  /** The id of the batch's run (kept on the active batch once the run exists); undefined before. */
  private runIdOf(batch: BatchRow, entry: ActiveBatch | undefined): number | undefined {
    if (entry?.runId !== undefined) return entry.runId;
    const id = this.options.store.runs.get(batch.runName)?.id;
    if (entry !== undefined) entry.runId = id;
    return id;
  }

  /**
   * The batch's tail decision, taken (saved, announced) when its target is reached: cancel stops the batch's
   * run (finishTail marks what had not ended), carry frees its place for the next batch and lets it run on.
   */
  private reachTarget(batch: BatchRow, entry: ActiveBatch): TailDecision | null {
    const before = entry.tail.decision;
    const runId = this.runIdOf(batch, entry);
    const decision = runId === undefined ? before : decideTail(this.options.store, entry.tail, runId);
    if (decision === null) return null;
    if (before === null) {
      // A decision is taken with at least target_groups groups complete: the request's target is the batch's.
      const target = entry.tail.targetGroups ?? 0;
      this.emit({ type: 'target_reached', batchId: batch.id, targetGroups: target, tail: decision.policy, complete: decision.completeTaskIds.length, cancelled: decision.cancelled.length, carried: decision.carried.length });
    }
    // (A target of every group leaves nothing to cut: the run ends as it would.)
    if (decision.policy === 'cancel' && decision.cancelled.length > 0 && !entry.tailCut) {
      entry.tailCut = true;
      entry.controller.abort(new CancelledError(`batch ${batch.id} reached its target (tail: cancel)`));
    }
    if (decision.policy === 'carry' && before === null) setImmediate(() => this.schedule());
    return decision;
  }

  /** tail cancel: the sessions that had not ended are cancelled (tail_cancelled); the batch is done for the trainer. */
  private finishTail(batch: BatchRow, entry: ActiveBatch, decision: TailDecision): void {
    const { store } = this.options;
    const target = entry.tail.targetGroups ?? 0;
    const cut = cutTail(store, batch, decision, target);
    this.recordGroups(batch, entry);
    const complete = store.batches.groupCount(batch.id);
    const reason = `target reached: ${complete} complete group${complete === 1 ? '' : 's'} of the ${target} asked; ${cut} session${cut === 1 ? '' : 's'} cancelled (tail: cancel)`;
    store.batches.setStatus(batch.id, 'finished', reason);
    this.emit({ type: 'batch', batchId: batch.id, status: 'finished', reason });
  }

  /**
   * Records each task whose sessions have all ended as a completed group (once; completion order = seq):
   * the task of `instanceId` after one session's end, every task at the batch's end.
   */
  private recordGroups(batch: BatchRow, entry: ActiveBatch | undefined, instanceId?: string): void {
    const { store } = this.options;
    const runId = this.runIdOf(batch, entry);
    if (runId === undefined) return;
    for (const task of store.runs.endedTasks(runId, instanceId)) {
      const row = store.batches.completeGroup(batch.id, task.taskId, task.instanceId);
      if (row !== undefined) this.emit({ type: 'group', batchId: batch.id, seq: row.seq, instanceId: row.instanceId });
    }
  }

  private rolloutOptions(batch: BatchRow): RolloutOptions {
    const request = batch.request as unknown as BatchRequest;
    const defaults = this.options.defaults ?? {};
    let datasetPath = request.dataset ?? '';
    if (request.tasks !== undefined) {
      datasetPath = path.join(this.options.workDir, `${batch.id}.jsonl`);
      writeFileSync(datasetPath, request.tasks.map((row) => JSON.stringify(row)).join('\n') + '\n');
    }
    return {
      timeoutSeconds: 1800,
      ...defaults,
      harness: request.harness,
      datasetPath,
      ...(request.instanceIds !== undefined ? { instanceIds: request.instanceIds } : {}),
      upstream: this.options.upstreams[0] as string,
      ...(this.options.upstreams.length > 1 ? { replicas: this.options.upstreams.slice(1) } : {}),
      sampling: batchSampling(request.sampling, defaults.sampling),
      runName: batch.runName,
      samples: request.samples ?? 1,
      ...(request.timeoutSeconds !== undefined ? { timeoutSeconds: request.timeoutSeconds } : {}),
      ...(request.concurrency !== undefined ? { concurrency: request.concurrency } : {}),
      ...(request.evaluate !== undefined ? { evaluate: request.evaluate } : {}),
      ...(request.allowLogprobMismatch !== undefined ? { allowLogprobMismatch: request.allowLogprobMismatch } : {}),
      // The batch's capture mode reaches its sessions' calls at the shared gateway (RunJob's session settings).
      tokenIn: batchCapture(request) === 'token_in',
    };
  }
}

const defaultExecutor: BatchExecutor = ({ runName, options, resume }, context) => (resume ? resumeRollout(runName, context) : runRollout(options, context));

/** Same idempotency key, another body: the client must pick a new key (HTTP 409). */
export class IdempotencyConflictError extends UsageError {
  override readonly code = 'idempotency-conflict';
  constructor(key: string, batchId: string) {
    super(`idempotency key "${key}" was used for batch ${batchId} with another body`, 'Send the same body again, or use a new key for a new batch.');
  }
}

/**
 * A store an earlier polar let hold a policy version above 2^53 - 1 (e.g. 99999999999999999999, stored as 1e20):
 * every resume would be refused as older, for good. Refused at start with the fix, which replaces it.
 */
function checkStoredPolicyVersion(stored: number, db: string): void {
  if (Number.isSafeInteger(stored) && stored >= 0) return;
  throw new ConfigError(
    `the store ${db} holds policy version ${stored}, which is not an integer from 0 to 2^53 - 1 (an earlier polar accepted it from a resume); every resume would be refused as older than it`,
    "Start polar serve with --policy-version <n> (your trainer's current policy version): it replaces the stored one, and batches and calls keep what they recorded.",
  );
}
