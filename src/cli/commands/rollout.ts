// `polar rollout`: run a harness on SWE-bench-format tasks, one session per task and sample.
import type { Command } from 'commander';
import { resolveCacheDir, resolveDbPath } from '../../config/paths.js';
import { EXIT_CODES, PolarError } from '../../errors.js';
import type { RolloutEvent } from '../../rollout/rollout-events.js';
import { runRollout } from '../../rollout/run-rollout.js';
import { createDockerRuntime } from '../../runtime/docker-runtime.js';
import { openStore } from '../../store/open-store.js';
import { printLine } from '../output.js';
import { printRolloutEvent } from '../print-rollout-event.js';
import { parseIntegerOption } from '../parse-number-option.js';
import { withSignalCleanup } from '../with-signal-cleanup.js';

interface RolloutFlags {
  harness: string;
  dataset: string;
  instance?: string[];
  upstream: string;
  db?: string;
  runName?: string;
  samples: number;
  timeout: number;
  json?: boolean;
}

export function registerRolloutCommand(program: Command): void {
  program
    .command('rollout')
    .description('Run a real harness CLI in a container per task and sample, capturing every model call')
    .requiredOption('--harness <name>', 'codex | claude-code | qwen-code | pi (see polar harness list)')
    .requiredOption('--dataset <file>', 'SWE-bench records, JSON or JSONL')
    .option('--instance <id...>', 'only these instance ids')
    .option('--upstream <url>', 'vLLM OpenAI base URL, or sim:<policy> (sim:oracle applies the gold patches)', 'sim:oracle')
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--run-name <name>', 'name of the run (default: <harness>-<time>)')
    .option('--samples <k>', 'sessions per task (a GRPO group)', parseIntegerOption('--samples', 1), 1)
    .option('--timeout <seconds>', 'deadline of one session', parseIntegerOption('--timeout', 1), 1800)
    .option('--json', 'print one JSON event per line')
    .action(async (flags: RolloutFlags) => {
      const store = openStore(resolveDbPath(flags.db));
      const print = flags.json ? (event: RolloutEvent) => printLine(JSON.stringify(event)) : printRolloutEvent;
      try {
        const result = await withSignalCleanup((signal) =>
          runRollout(
            {
              harness: flags.harness,
              datasetPath: flags.dataset,
              instanceIds: flags.instance,
              upstream: flags.upstream,
              runName: flags.runName,
              samples: flags.samples,
              timeoutSeconds: flags.timeout,
            },
            { runtime: createDockerRuntime(), store, cacheDir: resolveCacheDir(), signal, emit: print },
          ),
        );
        if (result.run.status === 'interrupted') {
          throw new PolarError(`run ${result.run.name} was interrupted`, 'cancelled', EXIT_CODES.cancelled, `Inspect it with: polar runs show ${result.run.name}`);
        }
      } finally {
        store.close();
      }
    });
}
