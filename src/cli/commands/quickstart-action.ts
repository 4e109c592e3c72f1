// What `polar quickstart` does (loaded only when it runs; flags are in quickstart.ts).
import { resolveCacheDir, resolveDbPath } from '../../config/paths.js';
import { EXIT_CODES, PolarError } from '../../errors.js';
import { instanceImageName } from '../../eval/swebench/instance-image-name.js';
import { loadDataset } from '../../eval/swebench/load-dataset.js';
import { installHarness } from '../../harness/install-harness.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../rollout/build-example-task-image.js';
import { runRollout } from '../../rollout/run-rollout.js';
import { createDockerRuntime } from '../../runtime/docker-runtime.js';
import { openStore } from '../../store/open-store.js';
import { formatCount } from '../../ui/format-number.js';
import { printLine } from '../output.js';
import { nextCommandLines, wrapText } from '../wrap-text.js';
import { printRolloutEvent } from '../print-rollout-event.js';
import { withSignalCleanup } from '../with-signal-cleanup.js';

const BASE_IMAGE = process.env.POLAR_BASE_IMAGE ?? 'polar-test/base:bookworm';

export async function quickstartAction(flags: { db?: string; harness: string; verbose?: boolean }): Promise<void> {
  const started = Date.now();
  let stepStarted = started;
  /** One line per step, with its time, aligned with the set-up scripts' lines. */
  const stepLine = (label: string, result: string): void => {
    printLine(`  ${label.padEnd(38)} ${String(Math.round((Date.now() - stepStarted) / 1000)).padStart(5)}s  ${result}`);
    stepStarted = Date.now();
  };
  const runtime = createDockerRuntime();
  await runtime.ping();
  if (!(await runtime.hasImage(BASE_IMAGE))) {
    throw new PolarError(
      `the base image ${BASE_IMAGE} is missing`,
      'config',
      EXIT_CODES.config,
      'Build it offline once with: bash .ci/build-test-image.sh (debootstrap + docker import), or set POLAR_BASE_IMAGE to a Debian-based image with git and python3.',
    );
  }
  const [record] = await loadDataset(EXAMPLE_DATASET);
  if (record === undefined) throw new PolarError(`${EXAMPLE_DATASET} is empty`, 'data', EXIT_CODES.dataError);
  const image = instanceImageName(record);
  const built = await buildExampleTaskImage(runtime, { baseImage: BASE_IMAGE, image, baseCommit: record.base_commit });
  stepLine('example task image', `${image} ${built ? 'built from ' + BASE_IMAGE : 'present'}`);
  const installed = await installHarness(flags.harness, {
    cacheDir: resolveCacheDir(),
    onProgress: (event) => {
      if (event.type === 'step') printLine(`    harness ${flags.harness}: ${event.detail}`);
    },
  });
  stepLine(`harness bundle ${flags.harness}`, `${installed.reportedVersion} at ${installed.dir}`);
  printLine(`polar quickstart: rollout of ${flags.harness} on the example task with the built-in oracle model`);
  const store = openStore(resolveDbPath(flags.db));
  try {
    const result = await withSignalCleanup((signal) =>
      runRollout(
        { harness: flags.harness, datasetPath: EXAMPLE_DATASET, upstream: 'sim:oracle', samples: 1, timeoutSeconds: 600 },
        { runtime, store, cacheDir: resolveCacheDir(), signal, emit: (event) => printRolloutEvent(event, { verbose: flags.verbose === true }) },
      ),
    );
    const session = store.runs.sessions(result.run.id)[0];
    if (session?.patch) printLine(`patch of session ${session.id}:\n${session.patch.trimEnd()}`);
    printLine();
    const calls = formatCount(session?.callCount ?? 0, 'model call');
    const lines = [
      `Done in ${Math.round((Date.now() - started) / 1000)} s: session ${session?.status ?? 'missing'}, reward ${session?.reward ?? '-'}.`,
      ...wrapText(
        `The ${flags.harness} harness ran unmodified in a container with no network. Its ${calls} went through polar's gateway ` +
          "to the built-in simulated model (the real Qwen3 tokenizer), which applied the task's gold patch with the harness's own tools; " +
          `the patch was graded with SWE-bench semantics. Every call is in ${store.path}, with its exact prompt and sampled token ids and their logprobs.`,
      ),
      ...nextCommandLines([`polar runs show ${result.run.name}`, 'polar view', `polar export jsonl --run ${result.run.name} -o rows.jsonl`]),
    ];
    for (const line of lines) printLine(line);
  } finally {
    store.close();
  }
}
