// `polar rollout`: tasks x samples sessions through the staged pipeline (init → READY → run → post),
// every model call captured through the embedded gateway, every state change persisted as it happens,
// infrastructure failures retried with backoff, and a killed run resumable at stage granularity.
import type { ToolFormat } from '../model-format/format-types.js';
import { rmSync } from 'node:fs';
import { availableParallelism, hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { observeRecorder } from '../capture/observe-recorder.js';
import { DEFAULT_ROLLOUT_SAMPLING, type SamplingPolicy } from '../config/sampling-policy.js';
import { UsageError } from '../errors.js';
import { archOfPlatform } from '../eval/swebench/families/image-naming.js';
import type { TaskSetName } from '../eval/swebench/families/task-set.js';
import { instanceImageName } from '../eval/swebench/instance-image-name.js';
import { datasetFile } from '../datasets/dataset-file.js';
import { describeDatasetSource } from '../datasets/resolve-dataset-source.js';
import { loadDataset } from '../eval/swebench/load-dataset.js';
import { parseSwebenchRecord } from '../eval/swebench/parse-swebench-record.js';
import { recordToRow } from '../eval/swebench/record-to-row.js';
import { runEvalContainer } from '../eval/swebench/run-eval-container.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import { activityBetween } from '../gateway/activity-meter.js';
import { createGateway, type Gateway } from '../gateway/create-gateway.js';
import { isHarnessInstalled } from '../harness/is-harness-installed.js';
import type { LoadedHarness } from '../harness/harness-manifest.js';
import { loadHarness } from '../harness/load-harness-manifest.js';
import { collectGarbage } from '../runtime/collect-garbage.js';
import type { ContainerLimits, ContainerRuntime, EnsureImageResult } from '../runtime/container-runtime.js';
import { createStoreRecorder } from '../store/create-store-recorder.js';
import type { Store } from '../store/open-store.js';
import type { RunRow, RunSessionRow, RunStatus, SessionOutcome, SessionStatus } from '../store/run-repository.js';
import type { RunSessionSummary } from '../store/run-session-queries.js';
import type { UpstreamProfile } from '../upstream/preflight/upstream-profile.js';
import { EVALUATED, evaluateOutcome } from './evaluate-outcome.js';
import { createRolloutSocketRoot } from './create-rollout-socket-root.js';
import { initSession } from './init-session.js';
import { createSessionEndpoints } from './session-endpoints.js';
import { createMetricsTracker } from './metrics-tracker.js';
import { postSession } from './post-session.js';
import { prepareRolloutUpstream, type PreparedRolloutUpstream, type RolloutUpstreamOptions } from './prepare-rollout-upstream.js';
import { pullTaskImages } from './pull-task-images.js';
import type { RolloutEventListener } from './rollout-events.js';
import { runAgent } from './run-agent.js';
import { describeHost, describeReplicas, imageDigest, readPolarVersion, RUN_MANIFEST_VERSION, sha256File, type RunManifest } from './run-manifest.js';
import { defaultPipelineSizes, type PipelineSizes, runPipeline } from './run-pipeline.js';
import { enterStage, type PreparedSession, type RanSession, type SessionEnvironment, type SessionItem } from './session-stages.js';
import { isSimulatorSpec } from './start-rollout-upstream.js';
import { timePhase } from './time-phase.js';

export interface RolloutOptions {
  harness: string;
  datasetPath: string;
  instanceIds?: string[];
  /** `http(s)://…/v1` or `sim:<policy>` (`sim:oracle` uses the run's own tasks). Required: no default. */
  upstream: string;
  /** Further upstream replicas serving the same model (`upstream` is the first); sessions are spread over all. */
  replicas?: string[];
  /** The served model; required when the upstream lists several. */
  model?: string;
  /** The run's sampling policy, enforced on every upstream call (default DEFAULT_ROLLOUT_SAMPLING). */
  sampling?: SamplingPolicy;
  /** Upper bound on max_tokens of every upstream call. */
  maxTokensCap?: number;
  /** Socket inactivity allowed from the upstream, in seconds (default 600). */
  upstreamTimeoutSeconds?: number;
  /** Upper bound of the upstream preflight, in seconds (default 20). */
  preflightTimeoutSeconds?: number;
  /** Start although the server's logprobs are not the sampling distribution's (recorded in the manifest). */
  allowLogprobMismatch?: boolean;
  /** End-of-turn token ids; default: derived from the upstream by the preflight. */
  eosTokenIds?: number[];
  runName?: string;
  samples: number;
  /** Deadline of one session's agent, counted from the agent's start. */
  timeoutSeconds: number;
  /** At most this many tasks (after --instance). */
  limit?: number;
  /** Agents running at once (the run pool). */
  concurrency?: number;
  /** Override any pool size. */
  pipeline?: Partial<PipelineSizes>;
  /** Total attempts of a session before an infrastructure failure is final (default 3). */
  maxAttempts?: number;
  /** Wait before the first retry round, doubled for each further round (default 2000 ms). */
  retryBackoffMs?: number;
  /** Image pulls at once (default 2). */
  pullConcurrency?: number;
  /** Evaluate each patch with SWE-bench semantics in the post stage and store the reward (default true). */
  evaluate?: boolean;
  /** Timeout of one evaluation's test run, in seconds (default 1800). */
  evalTimeoutSeconds?: number;
  limits?: ContainerLimits;
  /** `--task-set`: family of rows that do not name one (default: detected per row). */
  taskSet?: TaskSetName;
  /** `--image-template`: a template or preset for rows without their own image. */
  imageTemplate?: string;
  /** `--platform`: linux/amd64 (default) or linux/arm64; sets the architecture in generated image names. */
  platform?: string;
  /** `--token-in`: calls continuing a lineage go upstream as its exact tokens (gateway/token-in/). */
  tokenIn?: boolean;
  /** The upstream's tool-call format, for parsing token-in output (default hermes). */
  toolFormat?: ToolFormat;
}

export interface RolloutContext {
  runtime: ContainerRuntime;
  store: Store;
  cacheDir: string;
  signal: AbortSignal;
  emit: RolloutEventListener;
  /** Milliseconds between metrics events (default 1000; 0 = none). */
  metricsIntervalMs?: number;
  /** Long-lived callers (rollout-engine.ts): told of the run's gateway once it exists, before any session starts. */
  onGateway?: (gateway: Gateway) => void;
  /** Awaited before a session's init stage starts (e.g. `--max-staleness` holds stale sessions here). */
  beforeSessionStart?: (session: RunSessionRow) => Promise<void>;
  /** The policy version in force when the gateway starts (recorded on calls by gateways that support it). */
  policyVersion?: number;
}

export interface RolloutResult {
  run: RunRow;
  counts: Partial<Record<SessionStatus, number>>;
}

/** Default limits of a session container (`polar rollout --cpus/--memory/--pids-limit` override them). */
export const DEFAULT_SESSION_LIMITS: ContainerLimits = { cpus: 2, memoryBytes: 4 * 1024 ** 3, pidsLimit: 4096 };

/** The harness and its installed bundle; checked before a run is created or taken over. */
function installedHarness(name: string, cacheDir: string): { harness: LoadedHarness; bundleDir: string } {
  const harness = loadHarness(name);
  const installed = isHarnessInstalled(harness, cacheDir);
  if (!installed.installed) {
    throw new UsageError(`harness ${harness.name} is not installed (${installed.reason})`, `Install it once with: polar harness install ${harness.name}`);
  }
  return { harness, bundleDir: installed.dir };
}

/**
 * Starts a new run. Docker and the upstream preflight are checked before anything is created: a
 * failure there throws (DockerUnavailableError exit 4, UpstreamUnavailableError exit 5, ConfigError
 * exit 3) and leaves no run row and no container.
 */
export async function runRollout(options: RolloutOptions, context: RolloutContext): Promise<RolloutResult> {
  const bundle = installedHarness(options.harness, context.cacheDir);
  const { harness } = bundle;
  const loadOptions = {
    ...(options.taskSet !== undefined ? { taskSet: options.taskSet } : {}),
    ...(options.imageTemplate !== undefined ? { imageTemplate: options.imageTemplate } : {}),
    ...(options.platform !== undefined ? { arch: archOfPlatform(options.platform) } : {}),
  };
  let records = selectRecords(await loadDataset(options.datasetPath, { ...loadOptions, signal: context.signal }), options.instanceIds);
  if (options.limit !== undefined) records = records.slice(0, options.limit);
  const name = options.runName ?? `${harness.name}-${new Date().toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19)}`;
  if (context.store.runs.get(name) !== undefined) {
    throw new UsageError(`a run named "${name}" already exists in ${context.store.path}`, `Pick another --run-name, or continue it with: polar rollout --resume ${name}`);
  }
  await context.runtime.ping();
  const sampling = options.sampling ?? DEFAULT_ROLLOUT_SAMPLING;
  const upstream = await prepareRolloutUpstream(upstreamOptions(options, sampling, context.signal), records);
  let run: RunRow;
  try {
    const manifest = await buildManifest(options, sampling, harness, upstream.profile, records.length, context.runtime, upstream.urls);
    run = context.store.runs.create({
      name,
      harness: harness.name,
      datasetPath: describeDatasetSource(options.datasetPath),
      upstream: options.upstream,
      samples: options.samples,
      config: { ...options, sampling, datasetPath: describeDatasetSource(options.datasetPath) } as unknown as Record<string, unknown>,
      ownerPid: process.pid,
      ownerHost: hostname(),
    });
    context.store.runs.setManifest(run.id, manifest as unknown as Record<string, unknown>);
    for (const record of records) {
      const task = context.store.runs.addTask(run.id, record.instance_id, recordToRow(record));
      for (let sample = 0; sample < options.samples; sample += 1) context.store.runs.addSession(run.id, task.id, sample, upstream.simulated);
    }
  } catch (error) {
    await upstream.close();
    throw error;
  }
  return execute(context.store.runs.get(run.id) ?? run, options, bundle, context, upstream, false);
}

/**
 * Continues a run that was interrupted or killed: finished sessions stay; a session whose agent had
 * finished (patch stored) is only evaluated; the others restart (earlier calls stay, not trainable).
 */
export async function resumeRollout(runName: string, context: RolloutContext, overrides: Partial<RolloutOptions> = {}): Promise<RolloutResult> {
  const run = context.store.runs.get(runName);
  if (run === undefined) throw new UsageError(`no run "${runName}" in ${context.store.path}`, 'List the runs with: polar runs list');
  const options = { ...(run.config as unknown as RolloutOptions), ...overrides };
  const bundle = installedHarness(options.harness, context.cacheDir);
  await context.runtime.ping();
  const records = context.store.runs.tasks(run.id).map((task) => parseSwebenchRecord(task.record, `run ${run.name} task ${task.instanceId}`));
  const upstream = await prepareRolloutUpstream(upstreamOptions(options, options.sampling ?? DEFAULT_ROLLOUT_SAMPLING, context.signal), records);
  try {
    context.store.runs.setOwner(run.id, process.pid, hostname());
    // Containers of the killed process: its pid is dead, so gc removes them.
    await collectGarbage(context.runtime);
    // Light summaries (no agent log, no patch): a resume of 8,000 sessions does not load their logs.
    for (const session of context.store.runs.iterateSessionSummaries(run.id)) {
      const unfinished = session.stage !== 'done' || session.status === 'cancelled';
      if (unfinished && !resumesInPost(session)) context.store.runs.resetSession(session.id);
    }
  } catch (error) {
    await upstream.close();
    throw error;
  }
  return execute(context.store.runs.get(run.id) ?? run, options, bundle, context, upstream, true);
}

/** A session whose agent stage ended with a gradable outcome and a stored patch: a resume only evaluates it. */
function resumesInPost(session: RunSessionRow | RunSessionSummary): boolean {
  const stored = 'agentOutcomeStatus' in session ? session.agentOutcomeStatus : (session.agentOutcome?.status ?? null);
  return stored !== null && EVALUATED.has(stored) && (session.stage !== 'done' || session.status === 'cancelled');
}

function upstreamOptions(options: RolloutOptions, sampling: SamplingPolicy, signal: AbortSignal): RolloutUpstreamOptions {
  return {
    upstream: options.upstream,
    ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
    sampling,
    signal,
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.allowLogprobMismatch !== undefined ? { allowLogprobMismatch: options.allowLogprobMismatch } : {}),
    ...(options.eosTokenIds !== undefined ? { eosTokenIds: options.eosTokenIds } : {}),
    ...(options.preflightTimeoutSeconds !== undefined ? { timeoutMs: options.preflightTimeoutSeconds * 1000 } : {}),
  };
}

async function buildManifest(
  options: RolloutOptions,
  sampling: SamplingPolicy,
  harness: LoadedHarness,
  profile: UpstreamProfile,
  tasks: number,
  runtime: ContainerRuntime,
  urls: readonly string[],
): Promise<RunManifest> {
  return {
    schema: RUN_MANIFEST_VERSION,
    polar: readPolarVersion(),
    upstream: {
      url: isSimulatorSpec(options.upstream) ? options.upstream : profile.url,
      simulated: profile.simulated || isSimulatorSpec(options.upstream),
      vllmVersion: profile.vllmVersion,
      model: profile.model,
      maxModelLen: profile.maxModelLen,
      templateFingerprint: profile.templateFingerprint || null,
      logprobMode: profile.logprobMode,
      logprobMismatchAllowed: profile.logprobMismatchAllowed,
      reasoningField: profile.reasoningField,
      ...describeReplicas([options.upstream, ...(options.replicas ?? [])], urls),
    },
    sampling: { ...sampling },
    eosTokenIds: profile.eosTokenIds.length > 0 ? profile.eosTokenIds : null,
    harness: { name: harness.name, package: harness.package, version: harness.version },
    dataset: { path: describeDatasetSource(options.datasetPath), sha256: await sha256File(datasetFile(options.datasetPath)), tasks },
    rollout: {
      samples: options.samples,
      timeoutSeconds: options.timeoutSeconds,
      maxAttempts: options.maxAttempts ?? 3,
      limits: { ...(options.limits ?? DEFAULT_SESSION_LIMITS) },
    },
    images: {},
    host: describeHost(runtime.engineVersion ? await runtime.engineVersion().catch(() => null) : null),
  };
}

async function execute(
  run: RunRow,
  options: RolloutOptions,
  { harness, bundleDir }: { harness: LoadedHarness; bundleDir: string },
  context: RolloutContext,
  upstream: PreparedRolloutUpstream,
  resumed: boolean,
): Promise<RolloutResult> {
  const started = performance.now();
  const { store, runtime } = context;
  const records = new Map(store.runs.tasks(run.id).map((task) => [task.id, parseSwebenchRecord(task.record, `run ${run.name} task ${task.instanceId}`)]));
  const socketDir = await createRolloutSocketRoot();
  // Summaries of every session; full rows (agent log, stored outcome) only for the sessions still to run.
  const all = [...store.runs.iterateSessionSummaries(run.id)];
  const metrics = createMetricsTracker(all);
  const recorder = observeRecorder(createStoreRecorder(store, { simulated: upstream.simulated }), (record) => metrics.addTokens(record.capture.tokenIds?.length ?? 0));
  const gateway = createGateway({
    upstreamUrls: upstream.urls,
    recorder,
    profile: upstream.profile,
    sampling: options.sampling ?? DEFAULT_ROLLOUT_SAMPLING,
    ...(options.maxTokensCap !== undefined ? { maxTokensCap: options.maxTokensCap } : {}),
    ...(options.upstreamTimeoutSeconds !== undefined ? { upstreamTimeoutMs: options.upstreamTimeoutSeconds * 1000 } : {}),
    ...(options.tokenIn === true ? { tokenIn: true, toolFormat: options.toolFormat, tokenInHistory: (id: number) => store.calls.listBySession(id) } : {}),
    ...(context.policyVersion !== undefined ? { policyVersion: context.policyVersion } : {}),
  });
  context.onGateway?.(gateway);
  let ticker: NodeJS.Timeout | undefined;
  let counts: Partial<Record<SessionStatus, number>> = {};
  let failure: unknown;
  const activityStart = gateway.activity();
  const pending = all.filter((session) => session.stage !== 'done' || resumesInPost(session)).map((session) => store.runs.session(session.id) ?? fail(session.id));
  const images = pullTaskImages(runtime, pending.map((session) => instanceImageName(records.get(session.taskId) as SwebenchRecord)), {
    ...(options.pullConcurrency !== undefined ? { concurrency: options.pullConcurrency } : {}),
    ...(options.retryBackoffMs !== undefined ? { backoffMs: options.retryBackoffMs } : {}),
    signal: context.signal,
    emit: context.emit,
  });
  try {
    const env: SessionEnvironment = {
      runtime,
      runs: store.runs,
      runName: run.name,
      harness,
      bundleHostDir: bundleDir,
      endpoints: createSessionEndpoints(gateway, socketDir),
      model: upstream.profile.model,
      ...(upstream.profile.maxModelLen !== null ? { contextWindow: upstream.profile.maxModelLen } : {}),
      timeoutMs: options.timeoutSeconds * 1000,
      limits: options.limits ?? DEFAULT_SESSION_LIMITS,
      signal: context.signal,
      emit: (event) => {
        metrics.observe(event);
        context.emit(event);
      },
    };
    context.emit({ type: 'run-start', runId: run.id, runName: run.name, dbPath: store.path, sessions: all.length, harness: harness.name, upstream: options.upstream, resumed });
    const intervalMs = context.metricsIntervalMs ?? 1000;
    if (intervalMs > 0) ticker = setInterval(() => context.emit(metrics.snapshot(activityBetween(activityStart, gateway.activity()))), intervalMs);
    const sizes = { ...defaultPipelineSizes(options.concurrency ?? 4, availableParallelism()), ...options.pipeline };
    const evaluate = options.evaluate ?? true;
    const evalEnv = { runtime, runs: store.runs, runName: run.name, signal: context.signal, timeoutMs: (options.evalTimeoutSeconds ?? 1800) * 1000 };
    const finish = async (ran: RanSession, agentOutcome: SessionOutcome): Promise<void> => {
      let outcome = agentOutcome;
      if (evaluate && EVALUATED.has(agentOutcome.status)) {
        // Persisted before grading: a run killed now resumes with the evaluation only.
        store.runs.setAgentOutcome(ran.session.id, agentOutcome);
        enterStage(env, ran.session, 'post');
        const evaluated = await timePhase(env, ran, 'evaluate', () => evaluateOutcome(evalEnv, ran.session, ran.record, agentOutcome, ran.evalContainer));
        store.runs.addTimings(ran.session.id, { evaluate: ran.timings.evaluate ?? 0 });
        if (evaluated.interrupted) return;
        if (evaluated.reward !== null) metrics.addReward(evaluated.reward);
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
    };
    const maxAttempts = options.maxAttempts ?? 3;
    const backoffMs = options.retryBackoffMs ?? 2000;
    let queue = pending;
    for (let round = 0; queue.length > 0 && !context.signal.aborted; round += 1) {
      if (round > 0) await sleep(Math.min(60_000, backoffMs * 2 ** (round - 1)), undefined, { signal: context.signal }).catch(() => undefined);
      if (context.signal.aborted) break;
      const retry: RunSessionRow[] = [];
      const items = queue.map((queued): SessionItem => {
        const session = store.runs.session(queued.id) ?? queued;
        if (!resumesInPost(session)) store.runs.addAttempt(session.id);
        const record = records.get(session.taskId) as SwebenchRecord;
        const image = instanceImageName(record);
        return { session: store.runs.session(session.id) ?? session, record, image, imageReady: images.ready(image) };
      });
      await runPipeline(items, {
        init: async (item): Promise<PreparedSession> => {
          if (resumesInPost(item.session)) return { ...item, timings: {}, startedAt: performance.now() };
          await context.beforeSessionStart?.(item.session);
          return initSession(env, item);
        },
        run: async (prepared): Promise<RanSession> => {
          if (resumesInPost(prepared.session)) return prepared;
          // The clean container the evaluation needs is started while the agent runs.
          const evalContainer =
            evaluate && prepared.failure === undefined
              ? runEvalContainer(runtime, prepared.record, { labels: { runId: run.name, sessionId: String(prepared.session.id) } }).catch(() => undefined)
              : undefined;
          const ran = await runAgent(env, prepared);
          ran.evalContainer = evalContainer;
          return ran;
        },
        post: async (ran) => {
          const stored = ran.session.agentOutcome;
          if (resumesInPost(ran.session) && stored !== null) {
            await finish(ran, stored);
            return;
          }
          const { outcome: agentOutcome, retryable } = await postSession(env, ran);
          const attempts = store.runs.session(ran.session.id)?.attempts ?? maxAttempts;
          if (retryable && attempts < maxAttempts && !context.signal.aborted) {
            await (await ran.evalContainer)?.handle.remove().catch(() => undefined);
            store.runs.resetSession(ran.session.id);
            retry.push(ran.session);
            return;
          }
          await finish(ran, agentOutcome);
        },
      }, sizes, { signal: context.signal });
      queue = retry;
    }
    store.runs.setManifest(run.id, withImages(store.runs.get(run.id)?.manifest ?? null, images.resolved()));
  } catch (error) {
    failure = error;
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
    const activity = activityBetween(activityStart, gateway.activity());
    await gateway.close();
    await upstream.close();
    rmSync(socketDir, { recursive: true, force: true });
    counts = countStatuses(store, run.id);
    const wallMs = Math.round(performance.now() - started);
    const sessionCounts = store.runs.counts(run.id);
    const unfinished = sessionCounts.done < sessionCounts.total;
    const status: RunStatus = context.signal.aborted ? 'interrupted' : failure !== undefined ? 'failed' : unfinished ? 'interrupted' : 'finished';
    const reason = failure !== undefined ? (failure instanceof Error ? failure.message : String(failure)) : null;
    store.runs.finish(run.id, status, { wallMs, counts, modelBusyFraction: activity.busyFraction, meanInFlight: activity.meanInFlight, modelCalls: activity.requests }, reason);
    context.emit(metrics.snapshot(activity));
    if (status === 'failed') context.emit({ type: 'run-failed', runId: run.id, runName: run.name, reason: reason ?? 'unknown' });
    context.emit({ type: 'run-end', runId: run.id, runName: run.name, counts, wallMs });
  }
  if (failure !== undefined) throw failure;
  return { run: store.runs.get(run.id) ?? run, counts };
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

function selectRecords(dataset: SwebenchRecord[], instanceIds: string[] | undefined): SwebenchRecord[] {
  if (instanceIds === undefined || instanceIds.length === 0) return dataset;
  const byId = new Map(dataset.map((record) => [record.instance_id, record]));
  const missing = instanceIds.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    throw new UsageError(`--instance ${missing.join(', ')} not in the dataset`, `The dataset has ${dataset.length} instances, e.g. ${dataset.slice(0, 3).map((record) => record.instance_id).join(', ')}.`);
  }
  return instanceIds.map((id) => byId.get(id) as SwebenchRecord);
}

function countStatuses(store: Store, runId: number): Partial<Record<SessionStatus, number>> {
  return { ...store.runs.counts(runId).byStatus };
}

function fail(sessionId: number): never {
  throw new Error(`session ${sessionId} vanished from the store while its run was being scheduled`);
}
