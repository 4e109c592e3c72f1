// Benchmark: model busy fraction and sessions/min, polar's staged pipeline vs a serial baseline
// (init → agent → post one after the other in each worker), same concurrency, side by side.
// Realistic shape with simulated latencies: container init and evaluation each about as long as the
// agent run; the agent makes a few model turns (real HTTP through the real gateway to the simulator,
// with latency) separated by tool execution time.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createGateway } from '../../src/gateway/create-gateway.js';
import { defaultPipelineSizes, runPipeline, type PipelineMode } from '../../src/rollout/run-pipeline.js';
import { createStoreRecorder } from '../../src/store/create-store-recorder.js';
import { openStore } from '../../src/store/open-store.js';
import { startSimServer } from '../../src/upstream/sim/sim-server.js';
import type { Benchmark } from './benchmark.js';
import { markdownTable } from './markdown-table.js';

const SCALE = Number(process.env.BENCH_SCALE ?? '1');

interface Shape {
  concurrency: number;
  sessions: number;
  turns: number;
  /** Simulated model: time to first token and per token; answers are ~40 tokens. */
  firstTokenMs: number;
  perTokenMs: number;
  toolMs: number;
  initMs: number;
  postMs: number;
}

const SHAPE: Shape = {
  concurrency: 4,
  sessions: Math.max(8, Math.round(96 * SCALE)),
  turns: 2,
  firstTokenMs: 300,
  perTokenMs: 6,
  toolMs: 100,
  initMs: 1_300,
  postMs: 1_300,
};

interface Measured {
  mode: PipelineMode;
  wallMs: number;
  busyFraction: number;
  meanInFlight: number;
  /** Busy fraction between the first model call and the last one (the rollout's steady state). */
  steadyBusyFraction: number;
  sessionsPerMinute: number;
}

async function measure(mode: PipelineMode, shape: Shape): Promise<Measured> {
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
  // Agents differ like real ones: 1 to 3 model turns (mean `turns`) and 50-150% tool time, drawn from
  // a fixed-seed generator so both pipelines get the very same sessions.
  const random = seededRandom(42);
  const plan = new Map(keys.map((key) => [key, { turns: 1 + Math.floor(random() * 3), toolMs: shape.toolMs * (0.5 + random()) }]));
  const agent = async (key: string): Promise<void> => {
    const { turns, toolMs } = plan.get(key) ?? { turns: shape.turns, toolMs: shape.toolMs };
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
      init: async (key) => (await sleep(shape.initMs), key),
      run: async (key) => (await agent(key), key),
      post: async () => sleep(shape.postMs),
    },
    defaultPipelineSizes(shape.concurrency, availableParallelism()),
    { mode },
  );
  const wallMs = performance.now() - started;
  const after = gateway.activity();
  await gateway.close();
  await sim.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  const busyMs = after.busyMs - before.busyMs;
  return {
    mode,
    wallMs,
    busyFraction: busyMs / wallMs,
    meanInFlight: (after.inFlightMs - before.inFlightMs) / wallMs,
    steadyBusyFraction: (busyAtLast - busyAtFirst) / Math.max(1, lastCall - firstCall),
    sessionsPerMinute: shape.sessions / (wallMs / 60_000),
  };
}

export const pipelineBusy: Benchmark = {
  name: 'rollout pipeline: model busy fraction, staged vs serial',
  async run() {
    const staged = await measure('staged', SHAPE);
    const serial = await measure('serial', SHAPE);
    const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
    const rows = [staged, serial].map((result) => [
      result.mode === 'staged' ? 'polar staged (init | run | post pools, READY buffer)' : 'serial baseline (init → agent → post per worker)',
      percent(result.busyFraction),
      percent(result.steadyBusyFraction),
      result.meanInFlight.toFixed(2),
      result.sessionsPerMinute.toFixed(1),
      `${(result.wallMs / 1000).toFixed(1)} s`,
    ]);
    const table = markdownTable(['pipeline', 'model busy (whole run)', 'model busy (first to last call)', 'mean in flight', 'sessions/min', 'wall'], rows);
    const shape =
      `Shape: ${SHAPE.sessions} sessions, ${SHAPE.concurrency} agents at once, agent = 1 to 3 model turns ` +
      `(first token ${SHAPE.firstTokenMs} ms + ${SHAPE.perTokenMs} ms/token, real gateway + simulator) with 50-150% of ${SHAPE.toolMs} ms tool time after each; ` +
      `init ${SHAPE.initMs} ms and post ${SHAPE.postMs} ms per session (about one agent run each). ` +
      `Speed-up in sessions/min: ${(staged.sessionsPerMinute / serial.sessionsPerMinute).toFixed(2)}x. Polar (paper) reports 87.7% rollout GPU utilisation.`;
    return `${table}\n\n${shape}`;
  },
};

/** A small deterministic PRNG (mulberry32). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}
