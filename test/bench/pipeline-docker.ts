// Benchmark: the rollout pipeline, staged vs serial at equal workers, on a small run whose init and post do real
// Docker work on the example task (src/examples/hello-task): init = create the task container + prepare the
// workspace (prepareTaskState + prepareWorkspace, as a rollout does); post = extract the patch + SWE-bench
// evaluation of the gold patch in a fresh container + teardown of the session container. The agent is the same
// simulated model traffic as the large run (pipeline-busy.ts). Env: BENCH_SCALE (sessions multiplier, default 1:
// 8 sessions), BENCH_PIPELINE_DOCKER_WORKERS (total, default 4).
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { evaluateInstance } from '../../src/eval/swebench/evaluate-instance.js';
import { prepareTaskState } from '../../src/eval/swebench/families/prepare-task-state.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { extractPatch } from '../../src/rollout/extract-patch.js';
import { prepareWorkspace } from '../../src/rollout/prepare-workspace.js';
import type { ContainerHandle, ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter, sessionLabels } from '../../src/runtime/labels.js';
import { buildExampleImages, exampleRecords } from '../eval/swebench/example-instances.js';
import { dockerForTests } from '../runtime/docker-test-support.js';
import type { Benchmark } from './benchmark.js';
import { pipelineVariants, measure, resultsTable, type Shape, type SessionPhases } from './pipeline-busy.js';

const SCALE = Number(process.env.BENCH_SCALE ?? '1');
const RUN_ID = `bench-pipeline-docker-${process.pid}`;
const REPO = '/testbed';
/** Distinct example instances (images); sessions cycle over them like samples of a few tasks. */
const INSTANCES = 2;

const SHAPE: Shape = {
  totalWorkers: Math.max(3, Number(process.env.BENCH_PIPELINE_DOCKER_WORKERS ?? '4')),
  sessions: Math.max(4, Math.round(8 * SCALE)),
  firstTokenMs: 300,
  perTokenMs: 6,
  toolMs: 100,
};

interface PhaseLog {
  init: number[];
  post: number[];
}

/** Real init and post for session `index` (its record is `records[index % length]`); their durations go to `log`. */
export function dockerPhases(runtime: ContainerRuntime, records: readonly SwebenchRecord[], log: PhaseLog): SessionPhases {
  const handles = new Map<string, ContainerHandle>();
  const recordOf = (index: number) => records[index % records.length]!;
  return {
    async init(key, index) {
      const started = performance.now();
      const record = recordOf(index);
      const handle = await runtime.createContainer({ image: instanceImageName(record), network: 'none', workingDir: REPO, labels: sessionLabels({ runId: RUN_ID, sessionId: String(index) }) });
      handles.set(key, handle);
      await prepareWorkspace(handle, REPO, await prepareTaskState(handle, record, REPO));
      log.init.push(performance.now() - started);
    },
    async post(key, index) {
      const started = performance.now();
      const record = recordOf(index);
      const handle = handles.get(key);
      if (handle === undefined) throw new Error(`session ${index} has no container`);
      await extractPatch(handle, REPO, record.base_commit);
      const result = await evaluateInstance(runtime, record, record.patch, { timeoutMs: 300_000, labels: { runId: RUN_ID, sessionId: String(index) } });
      if (result.outcome !== 'resolved') throw new Error(`the gold patch must resolve ${record.instance_id}: ${result.outcome} ${result.error ?? ''}`);
      await handle.remove();
      handles.delete(key);
      log.post.push(performance.now() - started);
    },
  };
}

const mean = (values: readonly number[]) => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);

export const pipelineDocker: Benchmark = {
  name: 'rollout pipeline with real Docker init/post (small run): staged vs serial at equal workers',
  async run() {
    const runtime = await dockerForTests();
    if (runtime === undefined) return 'skipped: no Docker engine or test image (see .ci/build-test-image.sh)';
    const records = exampleRecords(INSTANCES);
    await buildExampleImages(runtime, records);
    try {
      // Warm-up: one session's real init and post, to proportion the staged pools by measured stage times.
      const warm: PhaseLog = { init: [], post: [] };
      const warmPhases = dockerPhases(runtime, records, warm);
      await warmPhases.init('warm-up', 0);
      await warmPhases.post('warm-up', 0);
      const agentMs = 2 * (SHAPE.firstTokenMs + 12 * SHAPE.perTokenMs + SHAPE.toolMs);
      const split = { init: warm.init[0]!, run: agentMs, post: warm.post[0]! };
      const rows = [];
      const logs: { label: string; log: PhaseLog }[] = [];
      for (const variant of pipelineVariants(SHAPE.totalWorkers, split).slice(0, 2)) {
        const log: PhaseLog = { init: [], post: [] };
        rows.push(await measure(variant, SHAPE, dockerPhases(runtime, records, log)));
        logs.push({ label: variant.mode, log });
      }
      const phaseNote = logs.map(({ label, log }) => `${label}: init ${Math.round(mean(log.init))} ms, post ${Math.round(mean(log.post))} ms`).join('; ');
      return [
        resultsTable(rows),
        '',
        `Shape: ${SHAPE.sessions} sessions over ${INSTANCES} example instances, ${SHAPE.totalWorkers} workers in total for both pipelines (the staged split proportioned by a warm-up session: init ${Math.round(split.init)} ms, agent ~${agentMs} ms, post ${Math.round(split.post)} ms). ` +
          `Init = container create + workspace prepare; post = patch extraction + SWE-bench evaluation of the gold patch in a fresh container + teardown, all real Docker work. Mean phase times measured in the runs (they grow with contention): ${phaseNote}.`,
        'On a machine with few cores the Docker phases compete for the same CPUs, so running more of them at once (the staged pools) can lengthen each; the large simulated run (previous benchmark) separates pipeline shape from machine size. Model busy has the same meaning as there.',
      ].join('\n');
    } finally {
      await runtime.removeContainers(runFilter(RUN_ID)).catch(() => undefined);
    }
  },
};
