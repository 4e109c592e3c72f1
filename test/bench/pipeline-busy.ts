// Benchmark: sessions/min and model-busy fraction, polar's staged pipeline vs a serial baseline, both with
// the same total number of workers, side by side. The agent makes 1-3 model turns (real HTTP through the
// real gateway to the simulator, with latency) separated by tool time; init (create + prepare) and post
// (evaluate + teardown) are latencies drawn per session from the phase ranges measured on real Docker,
// divided by PHASE_SCALE_DOWN. Env: BENCH_SCALE (sessions multiplier), BENCH_PIPELINE_WORKERS (total, default 12).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { runPipeline, type PipelineMode, type PipelineSizes } from '../../src/rollout/run-pipeline.js';
import { createStoreRecorder } from '../../src/store/create-store-recorder.js';
import { openStore } from '../../src/store/open-store.js';
import { startSimServer } from '../../src/sim/sim-server.js';
import type { Benchmark } from './benchmark.js';
import { markdownTable } from './markdown-table.js';
import { drawPhaseLatency, meanPhaseLatency, splitWorkers, type WorkerSplit } from './pipeline-phase-latency.js';
import { seededRandom } from '../../src/sim/seeded-random.js';

const SCALE = Number(process.env.BENCH_SCALE ?? '1');
/** Measured Docker phase latencies are divided by this (the agent below is ~1.3 s, far shorter than a real one). */
const PHASE_SCALE_DOWN = 2;
/** Tokens the simulator's canned answer streams (measured on the Qwen3 tokenizer: ~10; rounded up for the estimate). */
const ANSWER_TOKENS = 12;

export interface Shape {
  /** Workers of either pipeline in total (serial: all do init → run → post; staged: split over the pools). */
  totalWorkers: number;
  sessions: number;
  /** Simulated model: time to first token and per token. */
  firstTokenMs: number;
  perTokenMs: number;
  /** Mean tool time after each model turn (each session draws 50-150% of it). */
  toolMs: number;
}

const SHAPE: Shape = {
  totalWorkers: Math.max(3, Number(process.env.BENCH_PIPELINE_WORKERS ?? '12')),
  sessions: Math.max(8, Math.round(96 * SCALE)),
  firstTokenMs: 300,
  perTokenMs: 6,
  toolMs: 100,
};

/** Mean stage durations the staged split is proportioned by: 2 turns of (model + tool) on average. */
export function meanStageMs(shape: Shape): WorkerSplit {
  const phases = meanPhaseLatency(PHASE_SCALE_DOWN);
  return { init: phases.initMs, run: 2 * (shape.firstTokenMs + ANSWER_TOKENS * shape.perTokenMs + shape.toolMs), post: phases.postMs };
}

export interface Measured {
  label: string;
  workers: string;
  wallMs: number;
  /** Fraction of wall time with at least one model call in flight at the gateway. */
  busyFraction: number;
  meanInFlight: number;
  /** Busy fraction between the first model call and the last one (the rollout's steady state). */
  steadyBusyFraction: number;
  sessionsPerMinute: number;
}

interface Variant {
  label: string;
  mode: PipelineMode;
  sizes: PipelineSizes;
}

/** What init and post do for one session (its key): sleeps drawn from the measured ranges, or real Docker work. */
export interface SessionPhases {
  init(key: string, index: number): Promise<void>;
  post(key: string, index: number): Promise<void>;
}

export async function measure(variant: Variant, shape: Shape, phases?: SessionPhases): Promise<Measured> {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-pipeline-'));
  const store = openStore(path.join(dir, 'polar.db'));
  const sim = await startSimServer({ policy: () => ({ content: 'Working on it: running the next command now.' }), latency: { firstTokenMs: shape.firstTokenMs, perTokenMs: shape.perTokenMs } });
  const gateway = createGateway({ upstreamUrl: sim.url, recorder: createStoreRecorder(store, { simulated: true }) });
  const url = await gateway.listen(0);
  const keys = Array.from({ length: shape.sessions }, () => store.sessions.create({}).key);
  let firstCall = Number.POSITIVE_INFINITY;
  let lastCall = 0;
  let busyAtFirst = 0;
  let busyAtLast = 0;
  // Sessions differ like real ones: 1 to 3 model turns, 50-150% tool time, init and post drawn from the
  // measured Docker phase ranges; a fixed-seed generator gives every variant the very same sessions.
  const random = seededRandom(42);
  const plan = new Map(keys.map((key) => [key, { turns: 1 + Math.floor(random() * 3), toolMs: shape.toolMs * (0.5 + random()), ...drawPhaseLatency(random, PHASE_SCALE_DOWN) }]));
  const indexOf = new Map(keys.map((key, index) => [key, index]));
  const simulated: SessionPhases = { init: (key) => sleep(planOf(key).initMs), post: (key) => sleep(planOf(key).postMs) };
  const { init, post } = phases ?? simulated;
  const planOf = (key: string) => {
    const entry = plan.get(key);
    if (entry === undefined) throw new Error(`no plan for session ${key}`);
    return entry;
  };
  const agent = async (key: string): Promise<void> => {
    const { turns, toolMs } = planOf(key);
    for (let turn = 0; turn < turns; turn += 1) {
      const now = performance.now();
      if (now < firstCall) {
        firstCall = now;
        busyAtFirst = gateway.activity().busyMs;
      }
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: `turn ${turn}: fix the bug` }] }),
      });
      await response.text();
      if (!response.ok) throw new Error(`model call failed with HTTP ${response.status}`);
      lastCall = performance.now();
      busyAtLast = gateway.activity().busyMs;
      await sleep(toolMs);
    }
  };
  const started = performance.now();
  const before = gateway.activity();
  await runPipeline(
    keys,
    {
      init: async (key) => (await init(key, indexOf.get(key)!), key),
      run: async (key) => (await agent(key), key),
      post: async (key) => post(key, indexOf.get(key)!),
    },
    variant.sizes,
    { mode: variant.mode },
  );
  const wallMs = performance.now() - started;
  const after = gateway.activity();
  await gateway.close();
  await sim.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  const busyMs = after.busyMs - before.busyMs;
  const { initWorkers, runWorkers, postWorkers } = variant.sizes;
  return {
    label: variant.label,
    workers: variant.mode === 'serial' ? `${runWorkers} (each init → run → post)` : `${initWorkers + runWorkers + postWorkers} (${initWorkers} init + ${runWorkers} run + ${postWorkers} post)`,
    wallMs,
    busyFraction: busyMs / wallMs,
    meanInFlight: (after.inFlightMs - before.inFlightMs) / wallMs,
    steadyBusyFraction: (busyAtLast - busyAtFirst) / Math.max(1, lastCall - firstCall),
    sessionsPerMinute: shape.sessions / (wallMs / 60_000),
  };
}

/** Serial with all workers, and the staged pipeline with the same number split two ways. */
export function pipelineVariants(totalWorkers: number, meanMs: WorkerSplit): Variant[] {
  const sizes = (split: WorkerSplit): PipelineSizes => ({ initWorkers: split.init, runWorkers: split.run, postWorkers: split.post, readyBuffer: split.run });
  return [
    { label: 'serial baseline (init → agent → post per worker)', mode: 'serial', sizes: { initWorkers: totalWorkers, runWorkers: totalWorkers, postWorkers: totalWorkers, readyBuffer: 1 } },
    { label: 'polar staged, pools in proportion to stage times', mode: 'staged', sizes: sizes(splitWorkers(totalWorkers, meanMs)) },
    { label: "polar staged, polar's default pool ratio (init = post = 2 x run)", mode: 'staged', sizes: sizes(splitWorkers(totalWorkers, { init: 2, run: 1, post: 2 })) },
  ];
}

export const pipelineBusy: Benchmark = {
  name: 'rollout pipeline: sessions/min and model-busy fraction, staged vs serial at equal workers',
  async run() {
    const mean = meanStageMs(SHAPE);
    const results: Measured[] = [];
    for (const variant of pipelineVariants(SHAPE.totalWorkers, mean)) results.push(await measure(variant, SHAPE));
    const table = resultsTable(results);
    const notes = [
      `Shape: ${SHAPE.sessions} sessions, ${SHAPE.totalWorkers} workers in total for every pipeline (container slots: a serial worker holds one through init, agent and post). ` +
        `Agent = 1 to 3 model turns (first token ${SHAPE.firstTokenMs} ms + ${SHAPE.perTokenMs} ms/token through the real gateway to the simulator) with 50-150% of ${SHAPE.toolMs} ms tool time after each, about ${Math.round(mean.run)} ms on average. ` +
        `Init = create (0.2-0.6 s) + prepare (0.5-0.8 s), post = evaluate (0.45-0.55 s) + teardown (0.05-0.25 s): each phase uniform in the range measured on real Docker, divided by ${PHASE_SCALE_DOWN} ` +
        `(means: init ${Math.round(mean.init)} ms, post ${Math.round(mean.post)} ms). Real agent runs last minutes, so set-up is a far smaller share of a real session than here; this shape favours staging.`,
      'Model busy = fraction of wall time with at least one model call in flight at the gateway (request received to last byte sent), i.e. with GPU-side work pending. ' +
        'It is comparable between the rows of this table (same sessions, same workers, same simulator). It is NOT GPU utilisation and not comparable to Polar\'s reported rollout GPU utilisation: ' +
        'one call in flight counts as busy although a batching server would be mostly idle, and the simulator has no batching. Mean calls in flight is closer to the batch a real server would see.',
    ];
    return `${table}\n\n${notes.join('\n\n')}\n\nThe small run with real Docker work in init and post is the next benchmark (pipeline-docker.ts).`;
  },
};

/** One row per pipeline, with its sessions/min relative to the first (the serial baseline). */
export function resultsTable(results: readonly Measured[]): string {
  const serial = results[0];
  if (serial === undefined) throw new Error('no serial baseline measured');
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const rows = results.map((result) => [
    result.label,
    result.workers,
    result.sessionsPerMinute.toFixed(1),
    `${(result.sessionsPerMinute / serial.sessionsPerMinute).toFixed(2)}x`,
    percent(result.busyFraction),
    percent(result.steadyBusyFraction),
    result.meanInFlight.toFixed(2),
    `${(result.wallMs / 1000).toFixed(1)} s`,
  ]);
  return markdownTable(['pipeline', 'workers', 'sessions/min', 'vs serial', 'model busy (whole run)', 'model busy (first to last call)', 'mean calls in flight', 'wall'], rows);
}

