// Benchmark: an asynchronous trainer loop through `polar serve` (the next batch is sampled while the trainer
// steps; pause → weight sync → resume) vs the synchronous loop (rollout → export → step) at equal workers.
// The HTTP API, engine, store, results export and generation control are real; sessions are simulated
// (init, model turns, tool time, post as sleeps; model turns wait while generation is paused), so the
// table compares scheduling, not Docker. Env: BENCH_SCALE (steps and sessions multiplier).
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseSwebenchRecord } from '../../src/eval/swebench/parse-swebench-record.js';
import { recordToRow } from '../../src/eval/swebench/record-to-row.js';
import type { GenerationControl } from '../../src/gateway/generation-control.js';
import type { BatchExecutor } from '../../src/rollout/rollout-engine.js';
import { startServe } from '../../src/serve/start-serve.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { okCallRecord } from '../helpers/ok-call-record.js';
import type { Benchmark } from './benchmark.js';
import { formatNumber, markdownTable } from './markdown-table.js';

const SCALE = Number(process.env.BENCH_SCALE ?? '1');
const SHAPE = {
  steps: Math.max(2, Math.round(4 * SCALE)),
  tasksPerBatch: Math.max(2, Math.round(4 * SCALE)),
  samples: 4,
  /** Agents at once (per batch; both loops). */
  workers: 8,
  initMs: 300,
  turns: 4,
  modelMs: 150,
  toolMs: 100,
  postMs: 300,
  /** The trainer's optimizer step (generation continues in the async loop). */
  trainMs: 1500,
  /** The weight sync, with generation paused. */
  syncMs: 200,
};

/** Model time of all sessions on one meter, with generation control shared by every batch. */
class SimulatedModel implements GenerationControl {
  paused = false;
  version = 0;
  inFlight = 0;
  held = 0;
  busyMs = 0;
  private busySince = 0;
  private waiters: (() => void)[] = [];
  lastResumeAt = 0;
  firstCallAfterResume: number[] = [];
  private awaitingFirst = false;

  async call(ms: number): Promise<void> {
    while (this.paused) {
      this.held += 1;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
      this.held -= 1;
    }
    if (this.awaitingFirst) {
      this.awaitingFirst = false;
      this.firstCallAfterResume.push(performance.now() - this.lastResumeAt);
    }
    if (this.inFlight++ === 0) this.busySince = performance.now();
    await sleep(ms);
    if (--this.inFlight === 0) this.busyMs += performance.now() - this.busySince;
  }

  async pause(): Promise<{ drained: boolean; inFlight: number }> {
    this.paused = true;
    while (this.inFlight > 0) await sleep(5);
    return { drained: true, inFlight: 0 };
  }

  resume(options?: { policyVersion?: number }): void {
    if (!this.paused) return;
    this.paused = false;
    this.version = options?.policyVersion ?? this.version;
    this.lastResumeAt = performance.now();
    this.awaitingFirst = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  state() {
    return { paused: this.paused, policyVersion: this.version, inFlight: this.inFlight, held: this.held, pausedAt: null };
  }

  // No engine-side pause in this benchmark: nothing is frozen, no call spans a version change.
  freeze(): number {
    return 0;
  }

  async quiet(): Promise<boolean> {
    return true;
  }

  changeVersion() {
    return { boundaries: 0, unobserved: 0 };
  }

  upstreamModel(): string | undefined {
    return undefined;
  }

  markEngineAbort(): number {
    return 0;
  }
}

function simulatedExecutor(store: Store, model: SimulatedModel): BatchExecutor {
  return async ({ runName, options }, context) => {
    context.onGateway?.({ generation: model, activity: () => ({ wallMs: 1, busyMs: 0, inFlightMs: 0, busyFraction: 0, meanInFlight: 0, requests: 0 }) } as never);
    const run = store.runs.create({ name: runName, harness: options.harness, datasetPath: '', upstream: 'bench', samples: options.samples, config: {}, ownerPid: process.pid, ownerHost: hostname() });
    for (const row of (await import('node:fs')).readFileSync(options.datasetPath, 'utf8').trim().split('\n')) {
      const record = parseSwebenchRecord(JSON.parse(row), 'bench row');
      const task = store.runs.addTask(run.id, record.instance_id, recordToRow(record));
      for (let sample = 0; sample < options.samples; sample += 1) store.runs.addSession(run.id, task.id, sample, true);
    }
    const queue = store.runs.sessions(run.id);
    const worker = async () => {
      for (let session = queue.shift(); session !== undefined; session = queue.shift()) {
        await sleep(SHAPE.initMs);
        for (let turn = 0; turn < SHAPE.turns; turn += 1) {
          await model.call(SHAPE.modelMs);
          store.calls.insert(okCallRecord({ sessionId: session.id, prompt: [1, 2, 3 + turn], sampled: [4, 5, 151645], logprobs: [-0.1, -0.2, -0.3], messages: [{ role: 'user', content: 'x' }] }));
          await sleep(SHAPE.toolMs);
        }
        await sleep(SHAPE.postMs);
        store.runs.finishSession(session.id, { status: 'completed', reason: 'agent_finished', patch: 'diff' });
        store.runs.setReward(session.id, session.sampleIndex % 2, null);
        context.emit({ type: 'session-end', sessionId: session.id, instanceId: session.instanceId, sampleIndex: session.sampleIndex, status: 'completed', reason: 'agent_finished', detail: null, patchBytes: 4, calls: SHAPE.turns, timings: {}, reward: session.sampleIndex % 2 });
      }
    };
    await Promise.all(Array.from({ length: SHAPE.workers }, worker));
    store.runs.finish(run.id, 'finished');
    return { run: store.runs.get(run.id) ?? run, counts: {} };
  };
}

interface LoopResult {
  wallMs: number;
  sessions: number;
  busyFraction: number;
  resumeToFirstCallMs: number | null;
  rows: number;
  resultsMs: number;
}

async function loop(mode: 'sync' | 'async'): Promise<LoopResult> {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-serve-'));
  const store = openStore(path.join(dir, 'polar.db'));
  const model = new SimulatedModel();
  const token = 'bench';
  const serve = await startServe({ store, runtime: {} as never, cacheDir: dir, upstreams: ['bench'], workDir: path.join(dir, 'work'), executor: simulatedExecutor(store, model), requireInstalled: false, token, port: 0, maxBatches: 2 });
  const api = async (method: string, route: string, body?: unknown) =>
    fetch(`${serve.url}${route}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const tasks = (step: number) =>
    Array.from({ length: SHAPE.tasksPerBatch }, (_, i) => ({ instance_id: `bench__t-${step}-${i}`, repo: 'bench/t', base_commit: 'abc', problem_statement: 'x', patch: '', test_patch: '', FAIL_TO_PASS: '[]', PASS_TO_PASS: '[]', version: '1', created_at: '2026-01-01', environment_setup_commit: 'abc', hints_text: '' }));
  const submit = async (step: number) => ((await (await api('POST', '/v1/rollouts', { harness: 'pi', tasks: tasks(step), samples: SHAPE.samples, policy_version: step })).json()) as { id: string }).id;
  const collect = async (id: string) => {
    let cursor = 0;
    let rows = 0;
    for (;;) {
      const response = await api('GET', `/v1/rollouts/${id}/results?cursor=${cursor}`);
      const text = await response.text();
      cursor = Number(response.headers.get('polar-next-cursor'));
      rows += text === '' ? 0 : text.trim().split('\n').length;
      if (text === '' && response.headers.get('polar-batch-status') === 'finished') return rows;
      if (text === '') await sleep(mode === 'sync' ? 100 : 50);
    }
  };
  const started = performance.now();
  let next = await submit(0);
  let rows = 0;
  for (let step = 0; step < SHAPE.steps; step += 1) {
    const current = next;
    if (mode === 'async' && step + 1 < SHAPE.steps) next = await submit(step + 1);
    rows += await collect(current);
    await sleep(SHAPE.trainMs);
    await api('POST', '/v1/generation/pause', {});
    await sleep(SHAPE.syncMs);
    await api('POST', '/v1/generation/resume', { policy_version: step + 1 });
    if (mode === 'sync' && step + 1 < SHAPE.steps) next = await submit(step + 1);
  }
  const wallMs = performance.now() - started;
  // Results endpoint throughput: every batch's rows again, from the start.
  const resultsStarted = performance.now();
  let reread = 0;
  for (const batch of store.batches.list()) reread += (await (await api('GET', `/v1/rollouts/${batch.id}/results`)).text()).trim().split('\n').length;
  const resultsMs = performance.now() - resultsStarted;
  await serve.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  const waits = model.firstCallAfterResume;
  return {
    wallMs,
    sessions: SHAPE.steps * SHAPE.tasksPerBatch * SHAPE.samples,
    busyFraction: model.busyMs / wallMs,
    resumeToFirstCallMs: waits.length === 0 ? null : waits.reduce((a, b) => a + b, 0) / waits.length,
    rows: reread,
    resultsMs,
  };
}

export const serveAsync: Benchmark = {
  name: 'polar serve: asynchronous vs synchronous trainer loop',
  async run() {
    const sync = await loop('sync');
    const async_ = await loop('async');
    const line = (name: string, result: LoopResult) => [
      name,
      formatNumber(result.wallMs / 1000, 1),
      formatNumber(result.sessions / (result.wallMs / 60_000), 0),
      formatNumber(result.busyFraction, 2),
      result.resumeToFirstCallMs === null ? 'n/a' : formatNumber(result.resumeToFirstCallMs, 1),
      formatNumber(result.rows / (result.resultsMs / 1000), 0),
    ];
    if (sync.rows === 0 || async_.rows === 0) throw new Error('no rows came back from the results endpoint');
    return [
      `${SHAPE.steps} steps × ${SHAPE.tasksPerBatch} tasks × ${SHAPE.samples} samples, ${SHAPE.workers} agents per batch, ${SHAPE.turns} model turns of ${SHAPE.modelMs} ms, trainer step ${SHAPE.trainMs} ms + paused weight sync ${SHAPE.syncMs} ms (simulated sessions; real HTTP, engine, store and export).`,
      '',
      markdownTable(['loop', 'wall s', 'sessions/min', 'model busy', 'resume → first call ms', 'results rows/s'], [line('sync (rollout → export → step)', sync), line('async (polar serve)', async_)]),
    ].join('\n');
  },
};
