// The long-lived session scheduler: one gateway in front of the upstream replicas, one session socket root
// and one set of stage pools, shared by every run submitted to it while it lives. `polar rollout` makes
// one for its run (run-rollout.ts); `polar serve` keeps one for all its batches (rollout-engine.ts), so a
// pause or resume reaches every session's calls at one gateway and a new batch's sessions queue behind
// the running ones instead of starting their own gateway and pools.
import { rmSync } from 'node:fs';
import { observeRecorder } from '../capture/observe-recorder.js';
import { createGateway, type Gateway } from '../gateway/create-gateway.js';
import { normaliseUrl } from '../upstream/normalise-url.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { createStoreRecorder } from '../store/create-store-recorder.js';
import type { EngineMetricsPoller } from '../upstream/metrics/engine-metrics-poller.js';
import { startEngineMetrics, type EngineMetricsSettings } from '../upstream/metrics/start-engine-metrics.js';
import type { Store } from '../store/open-store.js';
import { createRolloutSocketRoot } from './create-rollout-socket-root.js';
import type { PreparedRolloutUpstream } from './prepare-rollout-upstream.js';
import type { PipelineSizes } from './run-pipeline.js';
import { RunJob, type RunSubmission, type SessionUnit } from './run-job.js';
import type { RolloutResult } from './run-rollout.js';
import { createSessionEndpoints } from './session-endpoints.js';
import { type PoolDepths, StagePools } from './stage-pools.js';
import { createSessionAdmission } from './admission/create-session-admission.js';
import { engineLoadsFromSnapshot } from './admission/engine-load.js';
import { footprintOfUsage, type HarnessFootprint, type HarnessFootprints } from './admission/host-capacity.js';
import { DEFAULT_ADMISSION, type AdmissionMode, type AdmissionPlace, type AdmissionState, type SessionAdmission } from './admission/session-admission.js';
import { HeldContext } from './admission/session-contexts.js';
import { HostPool } from './hosts/host-pool.js';

export interface SessionSchedulerOptions {
  store: Store;
  runtime: ContainerRuntime;
  /** The upstream (started and preflighted); the scheduler closes it when it closes. */
  upstream: PreparedRolloutUpstream;
  sizes: PipelineSizes;
  /** Socket inactivity allowed from the upstream, in ms (default 600 000). */
  upstreamTimeoutMs?: number;
  /** The policy version calls are recorded with until a resume sets another (default 0). */
  policyVersion?: number;
  /** The live task list the upstream's `sim:oracle` reads (prepared with `tasksArrive`); `addTasks` grows it. */
  tasks?: SwebenchRecord[];
  /** Polling of the replicas' engine metrics (ceiling flag, interval). */
  engineMetrics?: EngineMetricsSettings;
  /** `--admission`: engine (the default: up to `sizes.runWorkers`, as the engines' metrics allow) or fixed (`sizes.runWorkers` agents). */
  admission?: AdmissionMode;
  /** The Docker hosts (--hosts, admitted); default the local engine (`runtime`) alone. The caller closes it. */
  hosts?: HostPool;
}

/** What /v1/status and the dashboard show of admission. */
export interface SchedulerAdmissionState extends AdmissionState {
  /** Measured per harness (engine mode): peak memory and mean CPU of its containers. */
  footprints: Record<string, HarnessFootprint>;
}

export class SessionScheduler {
  readonly gateway: Gateway;
  readonly upstream: PreparedRolloutUpstream;
  /** Every replica's engine metrics, polled while the scheduler lives (utilisation, queue, KV usage). */
  readonly engineMetrics: EngineMetricsPoller;
  /** The hosts sessions are placed on. */
  readonly hosts: HostPool;
  readonly #store: Store;
  readonly #tasks: SwebenchRecord[] | undefined;
  readonly #socketDir: string;
  readonly #pools: StagePools<SessionUnit>;
  /** The job of every session in the pools: the gateway's per-session settings, live token counts. */
  readonly #jobs = new Map<number, RunJob>();
  readonly #running = new Set<RunJob>();
  /** The gate in front of the agent stage (`--admission`), and the harness footprints it measures. */
  readonly #admission: SessionAdmission;
  readonly #admissionMode: AdmissionMode;
  readonly #footprints: HarnessFootprints;
  /** Each session's calls folded into what its context held and reached (engine admission's estimate and guard). */
  readonly #contexts = new Map<number, HeldContext>();
  /** Each session's place in the admission gate while its agent runs (told the context it holds after each call). */
  readonly #places = new Map<number, AdmissionPlace>();
  readonly #stopPolling: () => void;
  #closed = false;

  private constructor(options: SessionSchedulerOptions, socketDir: string, engineMetrics: EngineMetricsPoller) {
    const { store, upstream } = options;
    this.#store = store;
    this.#socketDir = socketDir;
    this.#tasks = options.tasks;
    this.upstream = upstream;
    this.engineMetrics = engineMetrics;
    this.hosts = options.hosts ?? HostPool.local(options.runtime);
    const recorder = observeRecorder(createStoreRecorder(store, { simulated: upstream.simulated }), (record) => {
      const sampled = record.capture.tokenIds?.length ?? 0;
      this.#jobs.get(record.sessionId)?.metrics.addTokens(sampled);
      let context = this.#contexts.get(record.sessionId);
      if (context === undefined) this.#contexts.set(record.sessionId, (context = new HeldContext()));
      context.add(record.capture.promptTokenIds?.length ?? record.capture.promptTokens ?? 0, sampled);
      this.#places.get(record.sessionId)?.holding(context.current);
    });
    this.gateway = createGateway({
      upstreamUrls: upstream.urls,
      recorder,
      profile: upstream.profile,
      ...(options.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: options.upstreamTimeoutMs } : {}),
      ...(options.policyVersion !== undefined ? { policyVersion: options.policyVersion } : {}),
      tokenInHistory: (id: number) => store.calls.listBySession(id),
      sessionSettings: (id) => this.#jobs.get(id)?.settings,
    });
    this.#admissionMode = options.admission ?? DEFAULT_ADMISSION;
    const setup = createSessionAdmission({
      mode: this.#admissionMode,
      concurrency: options.sizes.runWorkers,
      contextWindow: upstream.profile.maxModelLen,
      replicas: upstream.urls.map(normaliseUrl),
      ...(this.#admissionMode === 'engine' ? { priorContexts: store.calls.recentSessionContexts({ model: upstream.profile.model }) } : {}),
      // Many hosts: what they hold together (measured per host), not this machine's memory.
      ...(this.hosts.remote ? { capacity: () => this.hosts.capacity() } : {}),
    });
    this.#admission = setup.admission;
    this.#footprints = setup.footprints;
    this.hosts.useFootprints(this.#footprints);
    this.#stopPolling = engineMetrics.onPoll((snapshot) => {
      const loads = engineLoadsFromSnapshot(snapshot, this.gateway.generation.state().paused);
      if (loads.size > 0) this.#admission.observe(loads, performance.now());
    });
    this.#pools = new StagePools<SessionUnit>(
      options.sizes,
      {
        init: (unit) => unit.job.init(unit),
        run: (unit, place) => {
          const id = unit.item.session.id;
          if (place !== undefined) this.#places.set(id, place);
          // Engine admission over several replicas placed the session on one: its calls go there.
          if (place?.replica != null) this.gateway.pinSession(id, place.replica);
          return unit.job.runAgent(unit);
        },
        post: (unit) => unit.job.post(unit),
        dropped: (unit) => unit.job.stopped(),
        left: (unit, how) => unit.job.left(unit, how),
      },
      this.#admission,
    );
  }

  static async start(options: SessionSchedulerOptions): Promise<SessionScheduler> {
    // First: an unreadable calibrations file is a configuration error before anything else exists.
    const engineMetrics = startEngineMetrics(options.upstream.urls, options.upstream.profiles, options.engineMetrics);
    try {
      return new SessionScheduler(options, await createRolloutSocketRoot(), engineMetrics);
    } catch (error) {
      await engineMetrics.close();
      throw error;
    }
  }

  /**
   * Runs a run's unfinished sessions (the run row and its sessions exist): resolves with its result when
   * every session ended or, after its signal aborted, when none is left in a stage. Rejects with the first
   * error a stage threw (the run row then ends `failed`).
   */
  submit(submission: RunSubmission): Promise<RolloutResult> {
    if (this.#closed) return Promise.reject(new Error('the session scheduler is closed'));
    const endpoints = createSessionEndpoints(this.gateway, this.#socketDir);
    const job = new RunJob(submission, {
      endpoints,
      hosts: this.hosts,
      model: this.upstream.profile.model,
      maxModelLen: this.upstream.profile.maxModelLen,
      activity: () => this.gateway.activity(),
      engineMetrics: this.engineMetrics,
      submit: (unit) => this.#pools.submit(unit),
      agentEnded: (unit) => this.#agentEnded(unit),
      admission: () => this.admissionState(),
    });
    for (const id of job.sessionIds) this.#jobs.set(id, job);
    this.#running.add(job);
    const forget = (): void => {
      this.#running.delete(job);
      for (const id of job.sessionIds) if (this.#jobs.get(id) === job) this.#jobs.delete(id);
    };
    return job.done.finally(forget);
  }

  /** Tasks of a run about to be submitted, for a simulated oracle upstream that solves them. */
  addTasks(records: readonly SwebenchRecord[]): void {
    if (this.#tasks === undefined) return;
    const known = new Set(this.#tasks.map((record) => record.instance_id));
    for (const record of records) if (!known.has(record.instance_id)) this.#tasks.push(record);
  }

  /** Runs in the scheduler now. */
  get runs(): number {
    return this.#running.size;
  }

  /** The admission gate: mode, places taken and waiting, the controller's state (engine mode), measured footprints. */
  admissionState(): SchedulerAdmissionState {
    return { ...this.#admission.state(), footprints: this.#footprints.all() };
  }

  /**
   * A session's agent stage ended: what its context reached feeds the controller; its container's footprint
   * (read with the OOM counter when the agent ended) over the time the container worked is recorded for
   * engine mode's host cap and the hosts' measured slots.
   */
  async #agentEnded(unit: SessionUnit): Promise<void> {
    const id = unit.item.session.id;
    const context = this.#contexts.get(id)?.value() ?? null;
    this.#contexts.delete(id);
    this.#places.delete(id);
    if (context !== null && unit.prepared?.failure === undefined) this.#admission.sessionEnded(context);
    const ran = unit.ran;
    if ((this.#admissionMode !== 'engine' && !this.hosts.remote) || ran?.usage === undefined) return;
    const { create = 0, prepare = 0, agent = 0 } = ran.timings;
    const measured = footprintOfUsage(ran.usage, create + prepare + agent);
    if (measured !== null) this.#footprints.record(unit.job.run.harness, measured);
  }

  /** Sessions waiting between the stages of the shared pools. */
  depths(): PoolDepths {
    return this.#pools.depths();
  }

  get store(): Store {
    return this.#store;
  }

  /** Waits for the submitted runs (stop them first through their signals), then closes the gateway and upstream. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#running].map((job) => job.done));
    await this.#pools.close();
    this.#stopPolling();
    await this.engineMetrics.close();
    await this.gateway.close();
    await this.upstream.close();
    rmSync(this.#socketDir, { recursive: true, force: true });
  }
}
