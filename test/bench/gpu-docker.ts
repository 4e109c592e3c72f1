// `npm run bench -- gpu-docker` (not in the default set: it needs Docker, the test base image and the Pi bundle,
// and takes minutes of real time): `polar rollout` with real Pi in Docker on the example task against the
// simulator with a GPU profile, `--admission fixed` vs `--admission engine` at the same --concurrency (what this
// 2-core machine holds). The modes alternate over several repeats (the order flipped each repeat) so load from
// other work on a shared machine falls on both; the figures are medians with their range. Each run starts on an
// empty database. The model is the simulator's scripted policy: every turn reasons for a while and runs a shell
// command whose output grows the context, so a few sessions fill the (deliberately small) KV cache and a fixed
// concurrency makes the engine preempt. Real time, real gateway, real /metrics poller, real admission. Each run
// also says where its time went (gpu-docker-trace.ts).
// Env: BENCH_GPU_DOCKER_SAMPLES (default 8), BENCH_GPU_DOCKER_CONCURRENCY (default 6),
// BENCH_GPU_DOCKER_KV_TOKENS (default 40000), BENCH_GPU_DOCKER_REPEATS (default 3).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import type { AdmissionMode } from '../../src/rollout/admission/session-admission.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { openStore } from '../../src/store/open-store.js';
import type { EngineUsageReport } from '../../src/upstream/metrics/engine-usage.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import type { Benchmark } from './benchmark.js';
import { traceRun, type RunTrace } from './gpu-docker-trace.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

const SAMPLES = Number(process.env.BENCH_GPU_DOCKER_SAMPLES ?? '8');
const CONCURRENCY = Number(process.env.BENCH_GPU_DOCKER_CONCURRENCY ?? '6');
const KV_TOKENS = Number(process.env.BENCH_GPU_DOCKER_KV_TOKENS ?? '40000');
const REPEATS = Math.max(1, Number(process.env.BENCH_GPU_DOCKER_REPEATS ?? '3'));
const PROFILE = 'qwen3-8b-h100';
const TURNS = 8;
/** Random bytes a tool call prints as numbers (`od -tu2`: 500 numbers, ~3k tokens), different in every session so no two share a prefix past the task. */
const RANDOM_BYTES = 1000;

/** The scripted model: TURNS turns of reasoning + a shell call, then a final answer. */
function policyScript(): object {
  const reasoning = 'Let me look at the numbers the command printed and check each of them against the expected sequence before I decide what to change in calc.py. '.repeat(12);
  return {
    turns: Array.from({ length: TURNS }, (_, turn) => ({ reasoning, content: `Step ${turn + 1}.`, toolCalls: [{ name: '$shell', arguments: { command: `od -An -tu2 -N${RANDOM_BYTES} /dev/urandom` } }] })),
    final: { content: 'Done.' },
  };
}

/** One run: a mode on its own empty database (the controller knows nothing of the sessions until one ends). */
interface Configuration {
  label: string;
  mode: AdmissionMode;
  repeat: number;
}

/**
 * The modes alternate, the order flipping each repeat (fixed, engine; engine, fixed; …), so a load that other
 * work puts on the machine falls on both about equally; the figures are medians over the repeats.
 */
function configurations(repeats: number): Configuration[] {
  return Array.from({ length: repeats }, (_, repeat) => {
    const modes: AdmissionMode[] = repeat % 2 === 0 ? ['fixed', 'engine'] : ['engine', 'fixed'];
    return modes.map((mode) => ({ label: `--admission ${mode}`, mode, repeat }));
  }).flat();
}

export interface Measured {
  label: string;
  mode: AdmissionMode;
  repeat: number;
  /** 1-min load average when the run started. */
  load: number;
  wallMs: number;
  completed: number;
  engine: EngineUsageReport['total'] | undefined;
  busy: number;
  meanInFlight: number;
  /** Admission limit seen in the metrics events: min / max. */
  limits: number[];
  trace: RunTrace;
}

async function measure(runtime: ContainerRuntime, configuration: Configuration, index: number, upstream: string, dir: string): Promise<Measured> {
  const { label, mode, repeat } = configuration;
  const store = openStore(path.join(dir, `run-${index}.db`));
  try {
    const events: RolloutEvent[] = [];
    const load = loadavg()[0] ?? Number.NaN;
    const started = performance.now();
    const { run, counts } = await runRollout(
      { harness: 'pi', datasetPath: EXAMPLE_DATASET, upstream, samples: SAMPLES, timeoutSeconds: 600, evaluate: false, runName: `gpu-docker-${index}-${mode}`, concurrency: CONCURRENCY, admission: mode },
      { runtime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: (event) => events.push(event), metricsIntervalMs: 1000 },
    );
    const wallMs = performance.now() - started;
    const stats = store.runs.get(run.id)?.stats as { engine?: EngineUsageReport; modelBusyFraction: number; meanInFlight: number };
    const limits = events.flatMap((event) => (event.type === 'metrics' && event.admission !== undefined ? [event.admission.limit] : []));
    const failed = Object.entries(counts).filter(([status, count]) => status !== 'completed' && (count ?? 0) > 0);
    if (failed.length > 0) throw new Error(`${label}: sessions did not complete: ${JSON.stringify(counts)}`);
    const measured = { label, mode, repeat, load, wallMs, completed: counts.completed ?? 0, engine: stats.engine?.total, busy: stats.modelBusyFraction, meanInFlight: stats.meanInFlight, limits, trace: traceRun(events, store, run.id) };
    process.stderr.write(`gpu-docker: run ${index + 1} (${label}, repeat ${repeat + 1}): ${formatNumber(perMinute(measured), 2)} sessions/min, ${measured.engine?.preemptions ?? 'n/a'} preemptions\n`);
    return measured;
  } finally {
    store.close();
  }
}

const perMinute = (m: Measured): number => m.completed / (m.wallMs / 60_000);

function row(m: Measured): Cell[] {
  const e = m.engine;
  const limit = m.limits.length === 0 ? 'n/a' : `${Math.min(...m.limits)}–${Math.max(...m.limits)}`;
  return [
    m.label,
    `${m.repeat + 1}`,
    formatNumber(m.load, 2),
    formatNumber(m.wallMs / 1000, 1),
    `${m.completed}`,
    formatNumber(perMinute(m), 2),
    limit,
    formatNumber(m.meanInFlight, 2),
    formatNumber(m.busy, 2),
    e?.preemptions ?? 'n/a',
    e?.peakKvUsage === null || e?.peakKvUsage === undefined ? 'n/a' : `${Math.round(100 * e.peakKvUsage)}%`,
    e?.generationTokens ?? 'n/a',
    e?.processedTokens ?? 'n/a',
    e?.effectiveUtilisation === null || e?.effectiveUtilisation === undefined ? 'n/a' : `${formatNumber(100 * e.effectiveUtilisation, 1)}%`,
  ];
}

const percent = (share: number | undefined): string => `${formatNumber(100 * (share ?? 0), 0)}%`;

function traceRow(m: Measured): Cell[] {
  const t = m.trace;
  const closed = Object.entries(t.hold)
    .filter(([reason]) => reason !== '')
    .map(([reason, share]) => `${reason} ${percent(share)}`)
    .join(', ');
  return [
    `${m.label} (${m.repeat + 1})`,
    closed === '' ? 'never' : closed,
    formatNumber(t.meanLimit, 1),
    formatNumber(t.meanTarget, 1),
    formatNumber(t.meanHostCap, 1),
    Number.isFinite(t.controllerHeld) ? `${formatNumber(t.controllerHeld, 0)} / ${formatNumber(t.controllerDuty, 2)}` : 'n/a',
    formatNumber(t.meanActive, 1),
    formatNumber(t.meanRunning, 2),
    formatNumber(t.meanWaiting, 2),
    percent(t.meanKv),
    percent(t.engineIdleWhileActive),
    formatNumber(t.initMs / 1000, 1),
    formatNumber(t.agentMs / 1000, 1),
    formatNumber(t.modelMs / 1000, 1),
    formatNumber(t.calls, 1),
    formatNumber(t.firstCallMs / 1000, 2),
    formatNumber(t.betweenCallsMs / 1000, 2),
    formatNumber(t.duty, 2),
    formatNumber(t.heldContext, 0),
    formatNumber(t.finalContext, 0),
  ];
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? Number.NaN : sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const spread = (values: readonly number[], decimals = 2): string => `${formatNumber(median(values), decimals)} (${formatNumber(Math.min(...values), decimals)}–${formatNumber(Math.max(...values), decimals)})`;

/** Per mode: medians and ranges over the repeats; engine over fixed: each repeat's pair, then their median and range. */
export function summary(results: readonly Measured[]): { table: string; goal: string } {
  const of = (mode: AdmissionMode): Measured[] => results.filter((m) => m.mode === mode);
  const rows: Cell[][] = (['fixed', 'engine'] as const).map((mode) => [
    `--admission ${mode}`,
    of(mode).length,
    spread(of(mode).map(perMinute)),
    spread(of(mode).map((m) => m.engine?.preemptions ?? Number.NaN), 0),
    spread(of(mode).map((m) => m.engine?.processedTokens ?? Number.NaN), 0),
    spread(of(mode).map((m) => m.meanInFlight)),
  ]);
  const ratios: number[] = [];
  const fewer: boolean[] = [];
  for (const fixed of of('fixed')) {
    const engine = of('engine').find((m) => m.repeat === fixed.repeat);
    if (engine === undefined) continue;
    ratios.push(perMinute(engine) / perMinute(fixed));
    fewer.push((engine.engine?.preemptions ?? Number.POSITIVE_INFINITY) < (fixed.engine?.preemptions ?? Number.NEGATIVE_INFINITY));
  }
  const ratio = median(ratios);
  const preemptions = { engine: median(of('engine').map((m) => m.engine?.preemptions ?? Number.NaN)), fixed: median(of('fixed').map((m) => m.engine?.preemptions ?? Number.NaN)) };
  const met = ratio >= 1 && preemptions.engine < preemptions.fixed;
  const reasons = [ratio < 1 ? `engine is ${formatNumber(ratio)}x fixed` : null, preemptions.engine < preemptions.fixed ? null : `engine preempts ${preemptions.engine} times (median), fixed ${preemptions.fixed}`].filter((reason) => reason !== null);
  return {
    table: markdownTable(['admission', 'runs', 'sessions/min median (min–max)', 'preemptions', 'tokens processed', 'mean calls in flight'], rows),
    goal:
      `Engine over fixed, each repeat's pair: ${ratios.map((value) => `${formatNumber(value)}x`).join(', ')}; median ${formatNumber(ratio)}x (fewer preemptions in ${fewer.filter(Boolean).length} of ${fewer.length} pairs).\n` +
      `- ${met ? 'met' : 'MISSED'}: engine admission >= 1.0x fixed sessions/min (median of the pairs) with fewer preemptions (median): ${formatNumber(ratio)}x, ${preemptions.engine} vs ${preemptions.fixed} preemptions${met ? '' : ` (${reasons.join('; ')})`}`,
  };
}

export const gpuDocker: Benchmark = {
  name: 'Pi in Docker on the simulated GPU: --admission fixed vs engine (gpu-docker)',
  optIn: 'gpu-docker',
  async run() {
    const runtime = await dockerForTests();
    if (runtime === undefined) return 'skipped: no Docker engine or test image (see .ci/build-test-image.sh)';
    const pi = loadHarness('pi');
    const installed = isHarnessInstalled(pi, resolveCacheDir());
    if (!installed.installed) return `skipped: the Pi bundle is not installed (${installed.reason}); polar harness install pi`;
    const [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    await buildExampleTaskImage(runtime, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-gpu-docker-'));
    try {
      const script = path.join(dir, 'policy.json');
      writeFileSync(script, JSON.stringify(policyScript()));
      const upstream = `sim:scripted:${script}?gpu=${PROFILE}&kv-cache-tokens=${KV_TOKENS}`;
      const results: Measured[] = [];
      for (const [index, configuration] of configurations(REPEATS).entries()) results.push(await measure(runtime, configuration, index, upstream, dir));
      const { table, goal } = summary(results);
      return [
        `${SAMPLES} Pi sessions on the example task (init and agent in Docker, no evaluation), --concurrency ${CONCURRENCY}; simulator ${PROFILE} with its KV cache cut to ${KV_TOKENS} tokens; ` +
          `scripted model: ${TURNS} turns of ~370 sampled tokens + a shell call printing ${RANDOM_BYTES / 2} random numbers (~3k tokens of context a turn, different in every session), then an answer. Real time; the same for every run. ` +
          `${REPEATS} repeats, the modes alternating (order flipped each repeat), each run on an empty database.`,
        '',
        table,
        '',
        goal,
        '',
        'Every run, in the order run (load: 1-min load average at its start):',
        '',
        markdownTable(['admission', 'repeat', 'load', 'wall s', 'sessions', 'sessions/min', 'agent limit (min–max)', 'mean calls in flight', 'model busy', 'preemptions', 'peak KV', 'sampled tokens', 'tokens processed', 'effective util (profile ceiling)'], results.map(row)),
        '',
        'Where the time went (from the run\'s 1-s metrics events and its stored calls; per-session figures are means): gate closed = share of snapshots by reason; limit (the smaller of the controller\'s target and the host\'s cap in engine mode), target, host cap, admitted, running, waiting, KV = means over the snapshots; ' +
          'engine idle = share of snapshots with agents admitted but no request running; init = Docker create + prepare; model = sum of the call latencies; first call = agent start to the first call (harness start-up); between calls = a call\'s end to the next call (tool + harness); duty = model ÷ agent; held = context weighted by call latency; final = last prompt + sampled.',
        '',
        markdownTable(['run', 'gate closed', 'limit', 'target', 'host cap', 'controller held / duty (end)', 'admitted', 'running', 'waiting', 'KV', 'engine idle', 'init s', 'agent s', 'model s', 'calls', 'first call s', 'between calls s', 'duty', 'held ctx', 'final ctx'], results.map(traceRow)),
      ].join('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
