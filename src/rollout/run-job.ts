// One run inside a session scheduler: its sessions' way through the shared stage pools (init → READY →
// run → post), retries with backoff, stage-granular resume, live metrics, and the run row's end
// (status, wall time, counts, model-busy fraction, image digests). The scheduler owns the gateway and
// the pools; a job owns only what belongs to its run.
import { setTimeout as sleep } from 'node:timers/promises';
import { instanceImageName } from '../eval/swebench/instance-image-name.js';
import { parseSwebenchRecord } from '../eval/swebench/parse-swebench-record.js';
import { runEvalContainer } from '../eval/swebench/run-eval-container.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import { activityBetween, type ActivitySnapshot } from '../gateway/activity-meter.js';
import type { SessionCallSettings } from '../gateway/create-gateway.js';
import type { LoadedHarness } from '../harness/harness-manifest.js';
import type { ContainerRuntime, EnsureImageResult } from '../runtime/container-runtime.js';
import type { RunRow, RunSessionRow, RunStatus, SessionOutcome } from '../store/run-repository.js';
import type { AdmissionState } from './admission/session-admission.js';
import type { RunSessionSummary } from '../store/run-session-queries.js';
import { DEFAULT_ROLLOUT_SAMPLING } from '../config/sampling-policy.js';
import { EVALUATED, evaluateOutcome } from './evaluate-outcome.js';
import { initSession } from './init-session.js';
import { createMetricsTracker, type MetricsTracker } from './metrics-tracker.js';
import { postSession } from './post-session.js';
import { pullTaskImages, type TaskImages } from './pull-task-images.js';
import { imageDigest } from './run-manifest.js';
import { runAgent } from './run-agent.js';
import { DEFAULT_SESSION_LIMITS, type RolloutContext, type RolloutOptions, type RolloutResult } from './run-rollout.js';
import type { SessionEndpoints } from './session-endpoints.js';
import { enterStage, type PreparedSession, type RanSession, type SessionEnvironment, type SessionItem } from './session-stages.js';
import { timePhase } from './time-phase.js';
import type { EngineMetricsPoller, EngineUsageWindow } from '../upstream/metrics/engine-metrics-poller.js';
import { runEngineMetrics } from './run-engine-metrics.js';
import type { HostPool, HostPoolEvent } from './hosts/host-pool.js';
import type { RolloutAdmissionMetrics, RolloutEngineMetrics, RolloutMetricsEvent } from './rollout-metrics.js';

/** What a job needs from its scheduler. */
export interface JobHost {
  endpoints: SessionEndpoints;
  /** The Docker hosts the scheduler places sessions on (the local engine alone without --hosts). */
  hosts: HostPool;
  /** The served model and context window every harness is configured with. */
  model: string;
  maxModelLen: number | null;
  activity(): ActivitySnapshot;
  /** The replicas' engine metrics (a run opens a window on them for its totals). */
  engineMetrics?: Pick<EngineMetricsPoller, 'openWindow' | 'snapshot'>;
  /** Hands a session to the shared pools. */
  submit(unit: SessionUnit): void;
  /** The session's agent stage ended (before its place in the pools is given back); never rejects. */
  agentEnded?(unit: SessionUnit): Promise<void>;
  /** The admission gate's state, for the metrics events (the dashboard's admission line). */
  admission?(): AdmissionState;
}

/** One session attempt on its way through the pools. */
export interface SessionUnit {
  job: RunJob;
  item: SessionItem;
  prepared?: PreparedSession;
  ran?: RanSession;
  /** Set by the post stage: the attempt failed for an infrastructure reason and runs again. */
  retry?: boolean;
  /** The unit counts against its run's `maxActive` (from its hand-over until its agent stage ended). */
  holdsSlot?: boolean;
}

export interface RunSubmission {
  run: RunRow;
  options: RolloutOptions;
  bundle: { harness: LoadedHarness; bundleDir: string };
  context: RolloutContext;
  resumed: boolean;
  /**
   * At most this many of the run's sessions between hand-over and the end of their agent stage (a batch's
   * `concurrency` in a shared scheduler, whose pools all runs share); default no limit.
   */
  maxActive?: number;
}

/**
 * A session whose agent stage ended with a gradable outcome and a stored patch: a resume only evaluates it.
 * Never one a serve batch's tail cut (tail_cancelled): the trainer was told it is not delivered.
 */
export function resumesInPost(session: RunSessionRow | RunSessionSummary): boolean {
  const stored = 'agentOutcomeStatus' in session ? session.agentOutcomeStatus : (session.agentOutcome?.status ?? null);
  const cancelled = session.status === 'cancelled' && session.statusReason !== 'tail_cancelled';
  return stored !== null && EVALUATED.has(stored) && (session.stage !== 'done' || cancelled);
}

export class RunJob {
  readonly run: RunRow;
  readonly settings: SessionCallSettings;
  readonly metrics: MetricsTracker;
  readonly signal: AbortSignal;
  readonly done: Promise<RolloutResult>;
  #resolve!: (result: RolloutResult) => void;
  #reject!: (error: unknown) => void;
  readonly #submission: RunSubmission;
  readonly #host: JobHost;
  readonly #env: SessionEnvironment;
  readonly #records: Map<number, SwebenchRecord>;
  /** The run's images on the local engine (pulled up front); undefined on SSH hosts, which pull where a session lands. */
  readonly #images: TaskImages | undefined;
  readonly #stopHostEvents: () => void;
  readonly #started = performance.now();
  readonly #activityStart: ActivitySnapshot;
  readonly #engineWindow: EngineUsageWindow | undefined;
  readonly #sessionIds: number[];
  readonly #retryTimers = new Set<AbortController>();
  #outstanding: number;
  #failure: unknown;
  #ticker: NodeJS.Timeout | undefined;
  #finished = false;
  #active = 0;
  #slotWaiters: (() => void)[] = [];

  constructor(submission: RunSubmission, host: JobHost) {
    this.#submission = submission;
    this.#host = host;
    const { run, options, context, bundle } = submission;
    const { store, runtime } = context;
    this.run = run;
    this.signal = context.signal;
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.settings = {
      sampling: options.sampling ?? DEFAULT_ROLLOUT_SAMPLING,
      ...(options.maxTokensCap !== undefined ? { maxTokensCap: options.maxTokensCap } : {}),
      tokenIn: options.tokenIn === true,
      ...(options.toolFormat !== undefined ? { toolFormat: options.toolFormat } : {}),
    };
    this.#records = new Map(store.runs.tasks(run.id).map((task) => [task.id, parseSwebenchRecord(task.record, `run ${run.name} task ${task.instanceId}`)]));
    // Summaries of every session; full rows (agent log, stored outcome) only for the sessions still to run.
    const all = [...store.runs.iterateSessionSummaries(run.id)];
    this.metrics = createMetricsTracker(all);
    const pending = all.filter((session) => session.stage !== 'done' || resumesInPost(session)).map((session) => store.runs.session(session.id) ?? vanished(session.id));
    this.#sessionIds = pending.map((session) => session.id);
    this.#outstanding = pending.length;
    this.#activityStart = host.activity();
    this.#engineWindow = host.engineMetrics?.openWindow();
    this.#images = host.hosts.remote
      ? undefined
      : pullTaskImages(runtime, pending.map((session) => instanceImageName(this.#record(session))), {
          ...(options.pullConcurrency !== undefined ? { concurrency: options.pullConcurrency } : {}),
          ...(options.retryBackoffMs !== undefined ? { backoffMs: options.retryBackoffMs } : {}),
          signal: context.signal,
          emit: context.emit,
        });
    this.#stopHostEvents = host.hosts.on((event: HostPoolEvent) => context.emit(event));
    this.#env = {
      runtime,
      hosts: host.hosts,
      runs: store.runs,
      runName: run.name,
      harness: bundle.harness,
      bundleHostDir: bundle.bundleDir,
      endpoints: host.endpoints,
      model: host.model,
      ...(host.maxModelLen !== null ? { contextWindow: host.maxModelLen } : {}),
      timeoutMs: options.timeoutSeconds * 1000,
      limits: options.limits ?? DEFAULT_SESSION_LIMITS,
      signal: context.signal,
      emit: (event) => {
        this.metrics.observe(event);
        context.emit(event);
      },
    };
    context.emit({ type: 'run-start', runId: run.id, runName: run.name, dbPath: store.path, sessions: all.length, harness: bundle.harness.name, upstream: options.upstream, resumed: submission.resumed });
    const intervalMs = context.metricsIntervalMs ?? 1000;
    if (intervalMs > 0) this.#ticker = setInterval(() => context.emit(this.#snapshot(this.#activity(), this.#engine())), intervalMs);
    this.signal.addEventListener('abort', () => this.#onAbort(), { once: true });
    void this.#feed(pending);
  }

  /** Ids of the sessions this job runs (the scheduler maps each to the job for the gateway's settings). */
  get sessionIds(): readonly number[] {
    return this.#sessionIds;
  }

  /** True once the run was stopped (Ctrl-C, cancel, shutdown): sessions not yet initialised are dropped. */
  stopped(): boolean {
    return this.signal.aborted;
  }

  async init(unit: SessionUnit): Promise<void> {
    if (resumesInPost(unit.item.session)) {
      unit.prepared = { ...unit.item, timings: {}, startedAt: performance.now() };
      return;
    }
    unit.prepared = await initSession(this.#env, unit.item);
  }

  async runAgent(unit: SessionUnit): Promise<void> {
    const prepared = unit.prepared as PreparedSession;
    if (resumesInPost(prepared.session)) {
      unit.ran = prepared;
      return;
    }
    // The clean container the evaluation needs is started while the agent runs (on the session's host).
    const evalContainer =
      this.#evaluate && prepared.failure === undefined
        ? runEvalContainer(this.#runtimeOf(unit), prepared.record, { labels: { runId: this.run.name, sessionId: String(prepared.session.id) } }).catch(() => undefined)
        : undefined;
    try {
      const ran = await runAgent(this.#env, prepared);
      ran.evalContainer = evalContainer;
      unit.ran = ran;
    } finally {
      await this.#host.agentEnded?.(unit).catch(() => undefined);
      this.#releaseSlot(unit);
    }
  }

  async post(unit: SessionUnit): Promise<void> {
    const ran = unit.ran as RanSession;
    const { store } = this.#submission.context;
    const stored = ran.session.agentOutcome;
    if (resumesInPost(ran.session) && stored !== null) {
      await this.#finish(ran, stored);
      return;
    }
    const { outcome: agentOutcome, retryable } = await postSession(this.#env, ran);
    const maxAttempts = this.#submission.options.maxAttempts ?? 3;
    const attempts = store.runs.session(ran.session.id)?.attempts ?? maxAttempts;
    if (retryable && attempts < maxAttempts && !this.signal.aborted) {
      await (await ran.evalContainer)?.handle.remove().catch(() => undefined);
      store.runs.resetSession(ran.session.id);
      unit.retry = true;
      return;
    }
    await this.#finish(ran, agentOutcome);
  }

  /** A unit left the pools: ended, or (retry) back to the feed after its backoff. */
  left(unit: SessionUnit, how: { dropped: boolean; failure?: unknown }): void {
    this.#releaseSlot(unit);
    // Normally given back at teardown (post-session.ts); a stage that threw leaves it here.
    unit.prepared?.lease?.release();
    if (how.failure !== undefined) this.#failure ??= how.failure;
    if (unit.retry === true && how.failure === undefined && !how.dropped && !this.signal.aborted) {
      this.#retryLater(unit);
      return;
    }
    this.#ended();
  }

  /** The engine of the session's host (where its image is), else the local one. */
  #runtimeOf(unit: SessionUnit): ContainerRuntime {
    return unit.prepared?.lease?.host.runtime ?? this.#submission.context.runtime;
  }

  get #evaluate(): boolean {
    return this.#submission.options.evaluate ?? true;
  }

  #record(session: Pick<RunSessionRow, 'taskId'>): SwebenchRecord {
    return this.#records.get(session.taskId) as SwebenchRecord;
  }

  #activity(): ActivitySnapshot {
    return activityBetween(this.#activityStart, this.#host.activity());
  }

  /** The metrics event, with the admission gate's state when the scheduler has one. */
  #snapshot(activity: ActivitySnapshot, engine: RolloutEngineMetrics | undefined): RolloutMetricsEvent {
    const pool = this.#host.hosts;
    const hosts = pool.remote ? { hosts: pool.status().map(({ name, state, sessions, capacity, images, losses, lastError }) => ({ name, state, sessions, capacity, images, losses, lastError })) } : {};
    const snapshot = { ...this.metrics.snapshot(activity, engine), ...hosts };
    const state = this.#host.admission?.();
    if (state === undefined) return snapshot;
    const admission: RolloutAdmissionMetrics = { mode: state.mode, active: state.active, waiting: state.waiting, limit: state.limit, target: state.engine?.target ?? null, hold: state.engine?.hold ?? null, hostCap: state.hostCap };
    if (state.engine !== null) {
      admission.heldContext = state.engine.heldContext;
      admission.duty = state.engine.duty;
    }
    if (state.replicas !== null && state.replicas.length > 1) {
      admission.replicas = state.replicas.map((replica) => ({
        replica: replica.replica,
        active: replica.active,
        target: replica.target,
        hold: replica.hold,
        kvUsage: replica.load?.kvUsage ?? null,
        waiting: replica.load?.waiting ?? null,
        preemptions: replica.load?.preemptions ?? null,
      }));
    }
    return { ...snapshot, admission };
  }

  /** The engines now, and over this run so far (undefined when the scheduler reads no engine metrics). */
  #engine(): RolloutEngineMetrics | undefined {
    const poller = this.#host.engineMetrics;
    return poller === undefined || this.#engineWindow === undefined ? undefined : runEngineMetrics(poller.snapshot(), this.#engineWindow.usage());
  }

  /** Hands the sessions to the pools in order, each after the run's admission hook (e.g. --max-staleness). */
  async #feed(sessions: readonly RunSessionRow[]): Promise<void> {
    if (sessions.length === 0) {
      this.#finalize();
      return;
    }
    for (const session of sessions) await this.#enqueue(session);
  }

  async #enqueue(queued: RunSessionRow): Promise<void> {
    const { store } = this.#submission.context;
    try {
      if (this.signal.aborted) {
        this.#ended();
        return;
      }
      const current = store.runs.session(queued.id) ?? queued;
      if (!resumesInPost(current)) {
        await this.#submission.context.beforeSessionStart?.(current);
        if (this.signal.aborted) {
          this.#ended();
          return;
        }
        store.runs.addAttempt(current.id);
      }
      await this.#takeSlot();
      if (this.signal.aborted) {
        this.#active -= 1;
        this.#ended();
        return;
      }
      const session = store.runs.session(current.id) ?? current;
      const record = this.#record(session);
      const image = instanceImageName(record);
      this.#host.submit({ job: this, item: { session, record, image, ...(this.#images !== undefined ? { imageReady: this.#images.ready(image) } : {}) }, holdsSlot: true });
    } catch (error) {
      this.#failure ??= error;
      this.#ended();
    }
  }

  /** Attempt n+1 of a session waits backoff x 2^(n-1) (capped at a minute), like the rounds it replaces. */
  #retryLater(unit: SessionUnit): void {
    const attempts = this.#submission.context.store.runs.session(unit.item.session.id)?.attempts ?? 1;
    const backoffMs = this.#submission.options.retryBackoffMs ?? 2000;
    const timer = new AbortController();
    this.#retryTimers.add(timer);
    void sleep(Math.min(60_000, backoffMs * 2 ** Math.max(0, attempts - 1)), undefined, { signal: timer.signal })
      .catch(() => undefined)
      .then(() => {
        this.#retryTimers.delete(timer);
        return this.#enqueue(unit.item.session);
      });
  }

  #onAbort(): void {
    for (const timer of this.#retryTimers) timer.abort();
    for (const wake of this.#slotWaiters.splice(0)) wake();
  }

  async #takeSlot(): Promise<void> {
    const max = this.#submission.maxActive;
    while (max !== undefined && this.#active >= max && !this.signal.aborted) await new Promise<void>((resolve) => this.#slotWaiters.push(resolve));
    this.#active += 1;
  }

  #releaseSlot(unit: SessionUnit): void {
    if (unit.holdsSlot !== true) return;
    unit.holdsSlot = false;
    this.#active -= 1;
    this.#slotWaiters.shift()?.();
  }

  async #finish(ran: RanSession, agentOutcome: SessionOutcome): Promise<void> {
    const { store, runtime } = this.#submission.context;
    const env = this.#env;
    let outcome = agentOutcome;
    if (this.#evaluate && EVALUATED.has(agentOutcome.status)) {
      // Persisted before grading: a run killed now resumes with the evaluation only.
      store.runs.setAgentOutcome(ran.session.id, agentOutcome);
      enterStage(env, ran.session, 'post');
      const evalEnv = { runtime: ran.lease?.host.runtime ?? runtime, runs: store.runs, runName: this.run.name, signal: this.signal, timeoutMs: (this.#submission.options.evalTimeoutSeconds ?? 1800) * 1000 };
      const evaluated = await timePhase(env, ran, 'evaluate', () => evaluateOutcome(evalEnv, ran.session, ran.record, agentOutcome, ran.evalContainer));
      store.runs.addTimings(ran.session.id, { evaluate: ran.timings.evaluate ?? 0 });
      if (evaluated.interrupted) return;
      if (evaluated.reward !== null) this.metrics.addReward(evaluated.reward);
      outcome = evaluated.outcome;
    } else {
      await (await ran.evalContainer)?.handle.remove().catch(() => undefined);
    }
    store.runs.finishSession(ran.session.id, outcome);
    const done = store.runs.session(ran.session.id);
    env.emit({
      type: 'session-end',
      sessionId: ran.session.id,
      instanceId: ran.session.instanceId,
      sampleIndex: ran.session.sampleIndex,
      status: outcome.status,
      reason: outcome.reason ?? null,
      detail: outcome.detail ?? null,
      patchBytes: Buffer.byteLength(outcome.patch ?? ''),
      calls: done?.callCount ?? 0,
      timings: done?.timings ?? ran.timings,
      reward: done?.reward ?? null,
    });
  }

  #ended(): void {
    this.#outstanding -= 1;
    if (this.#outstanding === 0) this.#finalize();
  }

  /** Every session ended (or the run stopped and none is in a stage): the run row's end, then the result. */
  #finalize(): void {
    if (this.#finished) return;
    this.#finished = true;
    const { store } = this.#submission.context;
    const context = this.#submission.context;
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
    this.#stopHostEvents();
    try {
      const images = this.#images?.resolved() ?? this.#host.hosts.resolvedImages();
      if (this.#failure === undefined && !this.signal.aborted) store.runs.setManifest(this.run.id, withImages(store.runs.get(this.run.id)?.manifest ?? null, images));
    } catch (error) {
      this.#failure ??= error;
    }
    const activity = this.#activity();
    const engine = this.#engine();
    const engineUsage = this.#engineWindow?.usage();
    this.#engineWindow?.close();
    const counts = { ...store.runs.counts(this.run.id).byStatus };
    const wallMs = Math.round(performance.now() - this.#started);
    const sessionCounts = store.runs.counts(this.run.id);
    const unfinished = sessionCounts.done < sessionCounts.total;
    const failure = this.#failure;
    const status: RunStatus = this.signal.aborted ? 'interrupted' : failure !== undefined ? 'failed' : unfinished ? 'interrupted' : 'finished';
    const reason = failure !== undefined ? (failure instanceof Error ? failure.message : String(failure)) : null;
    try {
      const hosts = this.#host.hosts.remote ? { hosts: this.#host.hosts.status() } : {};
      const stats = { wallMs, counts, modelBusyFraction: activity.busyFraction, meanInFlight: activity.meanInFlight, modelCalls: activity.requests, ...(engineUsage !== undefined ? { engine: engineUsage } : {}), ...hosts };
      store.runs.finish(this.run.id, status, stats, reason);
      context.emit(this.#snapshot(activity, engine));
      if (status === 'failed') context.emit({ type: 'run-failed', runId: this.run.id, runName: this.run.name, reason: reason ?? 'unknown' });
      context.emit({ type: 'run-end', runId: this.run.id, runName: this.run.name, counts, wallMs, ...(engineUsage !== undefined ? { engine: engineUsage.total } : {}) });
    } catch (error) {
      this.#reject(error);
      return;
    }
    if (failure !== undefined) this.#reject(failure);
    else this.#resolve({ run: store.runs.get(this.run.id) ?? this.run, counts });
  }
}

/** The manifest with the digests of the images the run used. */
function withImages(manifest: Record<string, unknown> | null, resolved: Map<string, EnsureImageResult>): Record<string, unknown> {
  const images = { ...((manifest?.images as Record<string, string> | undefined) ?? {}) };
  for (const [ref, image] of resolved) {
    const digest = imageDigest(image);
    if (digest !== undefined) images[ref] = digest;
  }
  return { ...(manifest ?? {}), images };
}

function vanished(sessionId: number): never {
  throw new Error(`session ${sessionId} vanished from the store while its run was being scheduled`);
}
