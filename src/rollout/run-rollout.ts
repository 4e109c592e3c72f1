// `polar rollout`: tasks x samples sessions through the staged pipeline (init → READY → run → post),
// every model call captured through the embedded gateway, every state change persisted as it happens,
// infrastructure failures retried with backoff, and a killed run resumable at stage granularity.
import type { ToolFormat } from '../model-format/format-types.js';
import { availableParallelism, hostname } from 'node:os';
import { DEFAULT_ROLLOUT_SAMPLING, type SamplingPolicy } from '../config/sampling-policy.js';
import { UsageError } from '../errors.js';
import { archOfPlatform } from '../eval/swebench/families/image-naming.js';
import type { TaskSetName } from '../eval/swebench/families/task-set.js';
import { datasetFile } from '../datasets/dataset-file.js';
import { describeDatasetSource } from '../datasets/resolve-dataset-source.js';
import { loadDataset } from '../eval/swebench/load-dataset.js';
import { parseSwebenchRecord } from '../eval/swebench/parse-swebench-record.js';
import { recordToRow } from '../eval/swebench/record-to-row.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import type { Gateway } from '../gateway/create-gateway.js';
import { isHarnessInstalled } from '../harness/is-harness-installed.js';
import type { LoadedHarness } from '../harness/harness-manifest.js';
import { loadHarness } from '../harness/load-harness-manifest.js';
import { collectGarbage } from '../runtime/collect-garbage.js';
import type { ContainerLimits, ContainerRuntime } from '../runtime/container-runtime.js';
import type { Store } from '../store/open-store.js';
import type { RunRow, RunSessionRow, SessionStatus } from '../store/run-repository.js';
import { logprobSamplingMismatch, refuseLogprobMismatch } from '../upstream/preflight/logprob-sampling-mismatch.js';
import type { UpstreamProfile } from '../upstream/preflight/upstream-profile.js';
import type { EngineMetricsSettings } from '../upstream/metrics/start-engine-metrics.js';
import type { EngineName } from '../upstream/engines/engine-name.js';
import { prepareRolloutUpstream, type RolloutUpstreamOptions } from './prepare-rollout-upstream.js';
import type { RolloutEventListener } from './rollout-events.js';
import type { ControlCapabilities } from '../upstream/engines/engine-control.js';
import { describeCapture, describeHost, describeReplicas, readPolarVersion, RUN_MANIFEST_VERSION, sha256File, type RunManifest } from './run-manifest.js';
import { resumesInPost } from './run-job.js';
import { defaultPipelineSizes, type PipelineSizes } from './run-pipeline.js';
import { SessionScheduler } from './session-scheduler.js';
import { agentSlotsFor } from './admission/create-session-admission.js';
import type { AdmissionMode } from './admission/session-admission.js';
import { isSimulatorSpec } from './start-rollout-upstream.js';
import type { HostPool } from './hosts/host-pool.js';

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
  /**
   * The --hosts file (an absolute path) and --host URLs the run's sessions run on, stored with the run so that a
   * resume reopens them (the file is read again: no key path is stored). Placement uses the context's hosts.
   */
  hostFlags?: { hosts?: string; host?: string[] };
  /** `--engine`: the upstream's family (vllm, sglang); detected from the server when absent. */
  engine?: EngineName;
  /** The run's sampling policy, enforced on every upstream call (default DEFAULT_ROLLOUT_SAMPLING). */
  sampling?: SamplingPolicy;
  /** Upper bound on max_tokens of every upstream call. */
  maxTokensCap?: number;
  /** Socket inactivity allowed from the upstream, in seconds (default 600). */
  upstreamTimeoutSeconds?: number;
  /** Upper bound of the upstream preflight, in seconds (default 20). */
  preflightTimeoutSeconds?: number;
  /** `--gpu-peak-tokens-per-second`: each replica's ceiling for effective GPU utilisation (default: profile, else calibration). */
  gpuPeakTokensPerSecond?: number;
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
  /** Agents running at once (the run pool); with `admission: 'engine'` (the default) the most. */
  concurrency?: number;
  /** `--admission`: engine (the default: as the engines' metrics allow, up to `concurrency`) or fixed (`concurrency` agents, default 4). */
  admission?: AdmissionMode;
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
  /** The long-lived scheduler to run in (`polar serve`); without it the run gets its own (gateway, pools). */
  scheduler?: SessionScheduler;
  /** Told of the run's own gateway once it exists, before any session starts (not called with `scheduler`). */
  onGateway?: (gateway: Gateway) => void;
  /** Awaited before a session's init stage starts (e.g. `--max-staleness` holds stale sessions here). */
  beforeSessionStart?: (session: RunSessionRow) => Promise<void>;
  /** The policy version in force when the gateway starts (recorded on calls by gateways that support it). */
  policyVersion?: number;
  /**
   * The Docker hosts to place sessions on (--hosts, admitted by the caller, which also closes them); default
   * the local engine (`runtime`) alone. With `scheduler`, the scheduler's hosts are used.
   */
  hosts?: HostPool;
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
  await pingEngines(context);
  const sampling = options.sampling ?? DEFAULT_ROLLOUT_SAMPLING;
  return withScheduler(options, records, context, async (scheduler) => {
    const { upstream } = scheduler;
    const manifest = await buildManifest(options, sampling, harness, upstream.profile, records.length, context.runtime, upstream.urls, scheduler.hosts);
    const run = context.store.runs.create({
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
    return scheduler.submit({ run: context.store.runs.get(run.id) ?? run, options, bundle, context, resumed: false, ...sharedLimit(options, context) });
  });
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
  await pingEngines(context);
  const records = context.store.runs.tasks(run.id).map((task) => parseSwebenchRecord(task.record, `run ${run.name} task ${task.instanceId}`));
  return withScheduler(options, records, context, async (scheduler) => {
    context.store.runs.setOwner(run.id, process.pid, hostname());
    // Containers of the killed process: its pid is dead, so gc removes them (on every host that answers).
    const up = scheduler.hosts.hosts.filter((host) => host.health().state === 'up');
    await Promise.all(up.map((host) => collectGarbage(host.runtime).catch(() => undefined)));
    // Light summaries (no agent log, no patch): a resume of 8,000 sessions does not load their logs.
    for (const session of context.store.runs.iterateSessionSummaries(run.id)) {
      // A session a serve batch's tail cut (tail_cancelled) stays cut: the trainer was told it is not delivered.
      const unfinished = session.stage !== 'done' || (session.status === 'cancelled' && session.statusReason !== 'tail_cancelled');
      if (unfinished && !resumesInPost(session)) context.store.runs.resetSession(session.id);
    }
    return scheduler.submit({ run: context.store.runs.get(run.id) ?? run, options, bundle, context, resumed: true, ...sharedLimit(options, context) });
  });
}

/** The engines sessions run on answer: the local one, or (--hosts) the admitted hosts (checked when admitted). */
async function pingEngines(context: RolloutContext): Promise<void> {
  const hosts = context.scheduler?.hosts ?? context.hosts;
  if (hosts?.remote === true) return;
  await context.runtime.ping();
}

/** In a shared scheduler, `concurrency` caps the run's sessions in the shared pools (its own pools are sized by it). */
function sharedLimit(options: RolloutOptions, context: RolloutContext): { maxActive?: number } {
  return context.scheduler !== undefined && options.concurrency !== undefined ? { maxActive: options.concurrency } : {};
}

/**
 * Runs `start` with the caller's long-lived scheduler (`polar serve`), or with one made for this run: its
 * upstream started and preflighted first (a failure leaves no run row), closed when the run ended.
 */
async function withScheduler(
  options: RolloutOptions,
  records: readonly SwebenchRecord[],
  context: RolloutContext,
  start: (scheduler: SessionScheduler) => Promise<RolloutResult>,
): Promise<RolloutResult> {
  if (context.scheduler !== undefined) {
    // The shared upstream was preflighted once with the default sampling: this run's own sampling is checked
    // against its logprob mode here, as a preflight of its own would have (exit 3 unless allowed).
    const shared = context.scheduler.upstream.profile;
    refuseLogprobMismatch(shared.logprobMode, options.sampling ?? DEFAULT_ROLLOUT_SAMPLING, options.allowLogprobMismatch === true, shared.engine);
    context.scheduler.addTasks(records);
    return start(context.scheduler);
  }
  const upstream = await prepareRolloutUpstream(upstreamOptions(options, options.sampling ?? DEFAULT_ROLLOUT_SAMPLING, context.signal), records);
  let scheduler: SessionScheduler;
  try {
    scheduler = await SessionScheduler.start({
      store: context.store,
      runtime: context.runtime,
      upstream,
      sizes: { ...defaultPipelineSizes(agentSlotsFor(options.admission, options.concurrency, undefined, remoteCapacity(context.hosts)), availableParallelism()), ...options.pipeline },
      ...(options.admission !== undefined ? { admission: options.admission } : {}),
      ...(options.upstreamTimeoutSeconds !== undefined ? { upstreamTimeoutMs: options.upstreamTimeoutSeconds * 1000 } : {}),
      ...(context.policyVersion !== undefined ? { policyVersion: context.policyVersion } : {}),
      ...(context.hosts !== undefined ? { hosts: context.hosts } : {}),
      engineMetrics: engineMetricsSettings(options),
    });
  } catch (error) {
    await upstream.close();
    throw error;
  }
  context.onGateway?.(scheduler.gateway);
  try {
    return await start(scheduler);
  } finally {
    await scheduler.close();
  }
}

/** How the run's scheduler polls the engines (the ceiling flag). */
export function engineMetricsSettings(options: Partial<RolloutOptions>): EngineMetricsSettings {
  return options.gpuPeakTokensPerSecond !== undefined ? { gpuPeakTokensPerSecond: options.gpuPeakTokensPerSecond } : {};
}

function upstreamOptions(options: RolloutOptions, sampling: SamplingPolicy, signal: AbortSignal): RolloutUpstreamOptions {
  return {
    upstream: options.upstream,
    ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
    sampling,
    signal,
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.engine !== undefined ? { engine: options.engine } : {}),
    ...(options.tokenIn === true ? { tokenIn: true } : {}),
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
  hosts: HostPool,
): Promise<RunManifest> {
  return {
    schema: RUN_MANIFEST_VERSION,
    polar: readPolarVersion(),
    upstream: {
      url: isSimulatorSpec(options.upstream) ? options.upstream : profile.url,
      simulated: profile.simulated || isSimulatorSpec(options.upstream),
      engine: profile.engine,
      engineVersion: profile.engineVersion,
      vllmVersion: profile.vllmVersion,
      model: profile.model,
      maxModelLen: profile.maxModelLen,
      templateFingerprint: profile.templateFingerprint || null,
      logprobMode: profile.logprobMode,
      // This run's sampling (a shared upstream's profile was preflighted with the default sampling).
      logprobMismatchAllowed: logprobSamplingMismatch(profile.logprobMode, sampling) !== null && options.allowLogprobMismatch === true,
      reasoningField: profile.reasoningField,
      ...(profile.control ? { control: summarizeControl(profile.control) } : {}),
      ...describeReplicas([options.upstream, ...(options.replicas ?? [])], urls),
    },
    sampling: { ...sampling },
    eosTokenIds: profile.eosTokenIds.length > 0 ? profile.eosTokenIds : null,
    capture: describeCapture(options.tokenIn, options.toolFormat, profile.toolFormat),
    harness: { name: harness.name, package: harness.package, version: harness.version },
    dataset: { path: describeDatasetSource(options.datasetPath), sha256: await sha256File(datasetFile(options.datasetPath)), tasks },
    rollout: {
      samples: options.samples,
      timeoutSeconds: options.timeoutSeconds,
      maxAttempts: options.maxAttempts ?? 3,
      limits: { ...(options.limits ?? DEFAULT_SESSION_LIMITS) },
    },
    images: {},
    host: describeHost(hosts.remote ? null : runtime.engineVersion ? await runtime.engineVersion().catch(() => null) : null),
    ...(hosts.remote ? { hosts: await describeHosts(hosts) } : {}),
  };
}

async function describeHosts(hosts: HostPool): Promise<NonNullable<RunManifest['hosts']>> {
  return Promise.all(
    hosts.hosts.map(async (host) => {
      const facts = host.health().state === 'up' ? await host.facts().catch(() => undefined) : undefined;
      return { name: host.name, ssh: host.address, engineVersion: facts?.engineVersion ?? null, architecture: facts?.architecture ?? null, slots: host.slots, labels: { ...host.labels } };
    }),
  );
}

function summarizeControl(control: ControlCapabilities): { offered: string[]; missing: string[] } {
  const features = Object.entries(control.features);
  return { offered: features.filter(([, support]) => support.available === 'yes').map(([name]) => name), missing: features.filter(([, support]) => support.available === 'no').map(([name]) => name) };
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

/** The sessions SSH hosts hold together (undefined for the local engine: its own memory and cores decide). */
export function remoteCapacity(hosts: HostPool | undefined): (() => number) | undefined {
  return hosts?.remote === true ? () => hosts.capacity() : undefined;
}
