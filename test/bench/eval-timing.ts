// Benchmark: SWE-bench evaluation wall time per instance, split into setup / tests / teardown, for N copies
// of the example task with the gold patch at concurrency 1 and 2, plus the official-style teardown for reference.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { evaluatePredictions, type EvaluatedInstance } from '../../src/eval/swebench/evaluate-predictions.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter, sessionLabels } from '../../src/runtime/labels.js';
import { buildExampleImages, exampleRecords, prediction } from '../eval/swebench/example-instances.js';
import { dockerForTests } from '../runtime/docker-test-support.js';
import type { Benchmark } from './benchmark.js';
import { markdownTable, type Cell } from './markdown-table.js';

const INSTANCES = 5;
const CONCURRENCIES = [1, 2] as const;
const RUN_ID = `bench-eval-${process.pid}`;
/** What swebench.harness waits when stopping a `tail -f /dev/null` container (cleanup_container). */
const OFFICIAL_STOP_TIMEOUT_SECONDS = 15;

export const evalTiming: Benchmark = {
  name: 'swebench eval timing',
  async run(): Promise<string> {
    const runtime = await dockerForTests();
    if (runtime === undefined) throw new Error('no Docker engine or test image: the eval benchmark needs both (see .ci/build-test-image.sh)');
    const records = exampleRecords(INSTANCES);
    await buildExampleImages(runtime, records);
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-eval-'));
    try {
      const evaluate = async (concurrency: number, runId: string) => {
        const result = await evaluatePredictions({
          runtime,
          dataset: records,
          predictions: records.map((record) => prediction(record.instance_id, record.patch)),
          concurrency,
          reportDir: path.join(dir, runId),
          runId,
          timeoutMs: 300_000,
        });
        if (result.summary.resolved_instances !== INSTANCES) {
          throw new Error(`the gold patch must resolve all ${INSTANCES} instances, got ${JSON.stringify(result.summary)}`);
        }
        return result;
      };
      await evaluate(1, `${RUN_ID}-warmup`);
      const perInstance: Cell[][] = [];
      const totals: Cell[][] = [];
      for (const concurrency of CONCURRENCIES) {
        const result = await evaluate(concurrency, `${RUN_ID}-c${concurrency}`);
        for (const instance of result.instances) perInstance.push([concurrency, instance.instanceId, ...phaseCells(instance)]);
        const mean = (phase: 'setup' | 'tests' | 'teardown') => Math.round(result.instances.reduce((sum, i) => sum + i.timings[phase], 0) / INSTANCES);
        totals.push([concurrency, INSTANCES, result.wallMs, Math.round(result.wallMs / INSTANCES), mean('setup'), mean('tests'), mean('teardown')]);
      }
      const official = await officialStyleTeardownMs(runtime, instanceImageName(records[0]!));
      return [
        markdownTable(['concurrency', 'instance', 'setup ms', 'tests ms', 'teardown ms', 'total ms'], perInstance),
        '',
        markdownTable(['concurrency', 'instances', 'wall ms', 'wall ms / instance', 'mean setup ms', 'mean tests ms', 'mean teardown ms'], totals),
        '',
        `setup = image check, container start, patch and eval.sh copy, patch apply; tests = eval.sh; teardown = forced removal (keep-alive process under init).`,
        `For reference, the official harness's teardown of the same image (\`tail -f /dev/null\` as PID 1, stop with ${OFFICIAL_STOP_TIMEOUT_SECONDS} s grace, then remove): ${official} ms.`,
      ].join('\n');
    } finally {
      await runtime.removeContainers(runFilter(RUN_ID)).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function phaseCells(instance: EvaluatedInstance): number[] {
  const { setup, tests, teardown } = instance.timings;
  return [setup, tests, teardown, setup + tests + teardown];
}

/** Stop-then-remove of a container whose PID 1 ignores SIGTERM, as swebench.harness cleans up. */
async function officialStyleTeardownMs(runtime: ContainerRuntime, image: string): Promise<number> {
  const handle = await runtime.createContainer({ image, cmd: ['tail', '-f', '/dev/null'], init: false, network: 'none', labels: sessionLabels({ runId: RUN_ID }) });
  const started = performance.now();
  try {
    await handle.stop({ timeoutSeconds: OFFICIAL_STOP_TIMEOUT_SECONDS });
  } finally {
    await handle.remove();
  }
  return Math.round(performance.now() - started);
}
