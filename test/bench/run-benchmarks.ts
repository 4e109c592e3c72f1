// `npm run bench`: runs every benchmark in sequence and prints its tables (markdown) with the machine.
import type { Benchmark } from './benchmark.js';
import { releaseAll } from './bench-cleanup.js';
import { evalTiming } from './eval-timing.js';
import { exportThroughput } from './export-throughput.js';
import { gatewayOverhead } from './gateway-overhead.js';
import { gpuCalibration } from './gpu-calibration.js';
import { gpuDocker } from './gpu-docker.js';
import { gpuScheduler } from './gpu-scheduler.js';
import { hostsScaling } from './hosts-scaling.js';
import { machineInfo } from './machine-info.js';
import { mergeRatio } from './merge-ratio.js';
import { pipelineDocker } from './pipeline-docker.js';
import { pipelineBusy } from './pipeline-busy.js';
import { serveAsync } from './serve-async.js';
import { sglangStream } from './sglang-stream.js';
import { soak } from './soak.js';
import { storageGrowth } from './storage-growth.js';
import { startUpTime } from './start-up-time.js';
import { tokenIn } from './token-in.js';
import { trainerYield } from './trainer-yield.js';
import { viewerSpeed } from './viewer-speed.js';

/** Add new benchmarks here; each lives in its own file and returns its table text. */
const BENCHMARKS: Benchmark[] = [
  startUpTime,
  gatewayOverhead,
  pipelineBusy,
  pipelineDocker,
  evalTiming,
  mergeRatio,
  storageGrowth,
  exportThroughput,
  viewerSpeed,
  soak,
  serveAsync,
  tokenIn,
  trainerYield,
  sglangStream,
  gpuCalibration,
  gpuScheduler,
  gpuDocker,
  hostsScaling,
];

process.once('exit', releaseAll);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    releaseAll();
    process.exit(code);
  });
}

async function main(): Promise<number> {
  const only = process.argv.slice(2);
  // An opt-in benchmark runs only when named by its word; the others when no word is given or one is in their name.
  const selected = BENCHMARKS.filter((benchmark) =>
    benchmark.optIn !== undefined ? only.includes(benchmark.optIn) : only.length === 0 || only.some((word) => benchmark.name.toLowerCase().includes(word.toLowerCase())),
  );
  process.stdout.write(`# polar benchmarks\n\nMachine: ${machineInfo()}\n`);
  let failed = 0;
  for (const benchmark of selected) {
    const started = performance.now();
    try {
      const table = await benchmark.run();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n## ${benchmark.name}\n\n${table}\n\n(${seconds} s)\n`);
    } catch (error) {
      failed += 1;
      process.stdout.write(`\n## ${benchmark.name}\n\nFAILED: ${(error as Error).stack ?? String(error)}\n`);
    }
  }
  process.stdout.write(`\nMachine at the end: ${machineInfo()}\n`);
  return failed === 0 ? 0 : 1;
}

process.exit(await main());
