// `polar rollout`: every selected task x samples sessions, each a real harness in its own container,
// every model call captured through the embedded gateway; state is persisted as it changes.
import { mkdtempSync, rmSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';
import { instanceImageName } from '../eval/swebench/instance-image-name.js';
import { loadDataset } from '../eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import { createGateway } from '../gateway/create-gateway.js';
import { isHarnessInstalled } from '../harness/is-harness-installed.js';
import { loadHarness } from '../harness/load-harness-manifest.js';
import type { ContainerLimits, ContainerRuntime } from '../runtime/container-runtime.js';
import { createStoreRecorder } from '../store/create-store-recorder.js';
import type { Store } from '../store/open-store.js';
import type { RunRow, SessionStatus } from '../store/run-repository.js';
import { UpstreamClient } from '../upstream/upstream-client.js';
import type { RolloutEventListener } from './rollout-events.js';
import { runSession } from './run-session.js';
import { type StartedRolloutUpstream, startRolloutUpstream } from './start-rollout-upstream.js';

export interface RolloutOptions {
  harness: string;
  datasetPath: string;
  instanceIds?: string[];
  /** `http(s)://…/v1` or `sim:<policy>` (`sim:oracle` uses the run's own tasks). */
  upstream: string;
  runName?: string;
  samples: number;
  timeoutSeconds: number;
  limits?: ContainerLimits;
}

export interface RolloutContext {
  runtime: ContainerRuntime;
  store: Store;
  cacheDir: string;
  signal: AbortSignal;
  emit: RolloutEventListener;
}

export interface RolloutResult {
  run: RunRow;
  counts: Partial<Record<SessionStatus, number>>;
}

const DEFAULT_LIMITS: ContainerLimits = { cpus: 2, memoryBytes: 4 * 1024 ** 3, pidsLimit: 4096 };

export async function runRollout(options: RolloutOptions, context: RolloutContext): Promise<RolloutResult> {
  const started = performance.now();
  const harness = loadHarness(options.harness);
  const installed = isHarnessInstalled(harness, context.cacheDir);
  if (!installed.installed) {
    throw new UsageError(`harness ${harness.name} is not installed (${installed.reason})`, `Install it once with: polar harness install ${harness.name}`);
  }
  const records = selectRecords(await loadDataset(options.datasetPath), options.instanceIds);
  await context.runtime.ping();
  for (const record of records) {
    const image = instanceImageName(record);
    await context.runtime.ensureImage(image, (event) => context.emit({ type: 'image-progress', image, status: `${event.id} ${event.status}`.trim() }));
  }

  const upstream = await startRolloutUpstream(options.upstream, records);
  const run = createRun(context.store, options, harness.name, records, upstream);
  const socketDir = mkdtempSync(path.join(tmpdir(), 'polar-gw-'));
  const gateway = createGateway({ upstreamUrl: upstream.url, recorder: createStoreRecorder(context.store, { simulated: upstream.simulated }) });
  try {
    const socketPath = path.join(socketDir, 'gateway.sock');
    await gateway.listenOnSocket(socketPath);
    await chmod(socketPath, 0o666);
    const model = await resolveServedModel(upstream.url);
    const sessions = context.store.runs.sessions(run.id);
    context.emit({ type: 'run-start', runId: run.id, runName: run.name, dbPath: context.store.path, sessions: sessions.length, harness: harness.name, upstream: options.upstream, resumed: false });
    const byTask = new Map(context.store.runs.tasks(run.id).map((task) => [task.id, task]));
    const recordsById = new Map(records.map((record) => [record.instance_id, record]));
    for (const session of sessions) {
      if (context.signal.aborted) break;
      const record = recordsById.get(byTask.get(session.taskId)?.instanceId ?? '');
      if (record === undefined) continue;
      context.store.runs.addAttempt(session.id);
      const fresh = context.store.runs.session(session.id) ?? session;
      const outcome = await runSession(
        {
          runtime: context.runtime,
          runs: context.store.runs,
          runName: run.name,
          harness,
          bundleHostDir: installed.dir,
          gatewaySocketDir: socketDir,
          model,
          timeoutMs: options.timeoutSeconds * 1000,
          limits: options.limits ?? DEFAULT_LIMITS,
          signal: context.signal,
          emit: context.emit,
        },
        fresh,
        record,
        instanceImageName(record),
      );
      context.store.runs.finishSession(session.id, outcome);
      const done = context.store.runs.session(session.id) ?? fresh;
      context.emit({
        type: 'session-end',
        sessionId: session.id,
        instanceId: session.instanceId,
        sampleIndex: session.sampleIndex,
        status: outcome.status,
        detail: outcome.detail ?? null,
        patchBytes: Buffer.byteLength(outcome.patch ?? ''),
        calls: done.callCount,
        timings: done.timings,
      });
    }
  } finally {
    await gateway.close();
    await upstream.close();
    rmSync(socketDir, { recursive: true, force: true });
  }
  const counts = countStatuses(context.store, run.id);
  const wallMs = Math.round(performance.now() - started);
  context.store.runs.finish(run.id, context.signal.aborted ? 'interrupted' : 'finished', { wallMs, counts });
  context.emit({ type: 'run-end', runId: run.id, runName: run.name, counts, wallMs });
  return { run: context.store.runs.get(run.id) ?? run, counts };
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

function createRun(store: Store, options: RolloutOptions, harness: string, records: SwebenchRecord[], upstream: StartedRolloutUpstream): RunRow {
  const name = options.runName ?? `${harness}-${new Date().toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19)}`;
  if (store.runs.get(name) !== undefined) {
    throw new UsageError(`a run named "${name}" already exists in ${store.path}`, 'Pick another --run-name, or continue it with --resume (see polar runs list).');
  }
  const run = store.runs.create({
    name,
    harness,
    datasetPath: path.resolve(options.datasetPath),
    upstream: options.upstream,
    samples: options.samples,
    config: { timeoutSeconds: options.timeoutSeconds, instanceIds: options.instanceIds ?? null, limits: options.limits ?? DEFAULT_LIMITS },
    ownerPid: process.pid,
    ownerHost: hostname(),
  });
  for (const record of records) {
    const task = store.runs.addTask(run.id, record.instance_id, recordToJson(record));
    for (let sample = 0; sample < options.samples; sample += 1) store.runs.addSession(run.id, task.id, sample, upstream.simulated);
  }
  return run;
}

/** The record as its dataset row (the `extra` fields back at top level). */
function recordToJson(record: SwebenchRecord): Record<string, unknown> {
  const { extra, ...known } = record;
  return { ...extra, ...known };
}

async function resolveServedModel(url: string): Promise<string> {
  const client = new UpstreamClient({ baseUrl: url, idleTimeoutMs: 30_000 });
  try {
    const list = await client.listModels();
    const id = list.data[0]?.id;
    if (id === undefined) throw new UsageError(`the upstream ${url} lists no models`);
    return id;
  } finally {
    client.close();
  }
}

function countStatuses(store: Store, runId: number): Partial<Record<SessionStatus, number>> {
  const counts: Partial<Record<SessionStatus, number>> = {};
  for (const session of store.runs.sessions(runId)) {
    if (session.status !== null) counts[session.status] = (counts[session.status] ?? 0) + 1;
  }
  return counts;
}
