// `npm run bench -- gpu-docker` (not in the default set: it needs Docker, the test base image and the Pi bundle,
// and takes a few minutes of real time): `polar rollout` with real Pi in Docker on the example task against the
// simulator with a GPU profile, `--admission fixed` vs `--admission engine` at the same --concurrency (what this
// 2-core machine holds); engine twice: on an empty database (it knows nothing of the sessions' contexts until one
// ends) and again on the database of that run (it starts from what those sessions reached). The model is the simulator's scripted policy: every turn reasons for a while and runs
// a shell command whose output grows the context, so a few sessions fill the (deliberately small) KV cache and
// a fixed concurrency makes the engine preempt. Real time, real gateway, real /metrics poller, real admission.
// Env: BENCH_GPU_DOCKER_SAMPLES (default 8), BENCH_GPU_DOCKER_CONCURRENCY (default 6),
// BENCH_GPU_DOCKER_KV_TOKENS (default 40000).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

const SAMPLES = Number(process.env.BENCH_GPU_DOCKER_SAMPLES ?? '8');
const CONCURRENCY = Number(process.env.BENCH_GPU_DOCKER_CONCURRENCY ?? '6');
const KV_TOKENS = Number(process.env.BENCH_GPU_DOCKER_KV_TOKENS ?? '40000');
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

interface Configuration {
  label: string;
  mode: AdmissionMode;
  /** The database file (in the bench's folder): a second run on the same file sees the first one's sessions. */
  db: string;
}

const CONFIGURATIONS: Configuration[] = [
  { label: '--admission fixed', mode: 'fixed', db: 'fixed.db' },
  { label: '--admission engine, empty database', mode: 'engine', db: 'engine.db' },
  { label: '--admission engine, after that run', mode: 'engine', db: 'engine.db' },
];

interface Measured {
  label: string;
  wallMs: number;
  completed: number;
  engine: EngineUsageReport['total'] | undefined;
  busy: number;
  meanInFlight: number;
  /** Admission limit seen in the metrics events: min / max. */
  limits: number[];
}

async function measure(runtime: ContainerRuntime, configuration: Configuration, index: number, upstream: string, dir: string): Promise<Measured> {
  const { label, mode } = configuration;
  const store = openStore(path.join(dir, configuration.db));
  try {
    const events: RolloutEvent[] = [];
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
    return { label, wallMs, completed: counts.completed ?? 0, engine: stats.engine?.total, busy: stats.modelBusyFraction, meanInFlight: stats.meanInFlight, limits };
  } finally {
    store.close();
  }
}

function row(m: Measured): Cell[] {
  const e = m.engine;
  const limit = m.limits.length === 0 ? 'n/a' : `${Math.min(...m.limits)}–${Math.max(...m.limits)}`;
  return [
    m.label,
    formatNumber(m.wallMs / 1000, 1),
    `${m.completed}`,
    formatNumber(m.completed / (m.wallMs / 60_000), 2),
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
      for (const [index, configuration] of CONFIGURATIONS.entries()) results.push(await measure(runtime, configuration, index, upstream, dir));
      return [
        `${SAMPLES} Pi sessions on the example task (init and agent in Docker, no evaluation), --concurrency ${CONCURRENCY}; simulator ${PROFILE} with its KV cache cut to ${KV_TOKENS} tokens; ` +
          `scripted model: ${TURNS} turns of ~370 sampled tokens + a shell call printing ${RANDOM_BYTES / 2} random numbers (~3k tokens of context a turn, different in every session), then an answer. Real time; the same for every run.`,
        '',
        markdownTable(['admission', 'wall s', 'sessions', 'sessions/min', 'agent limit (min–max)', 'mean calls in flight', 'model busy', 'preemptions', 'peak KV', 'sampled tokens', 'tokens processed', 'effective util (profile ceiling)'], results.map(row)),
      ].join('\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
