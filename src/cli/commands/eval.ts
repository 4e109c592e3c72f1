// `polar eval swebench`: evaluate a predictions file (official layout and summary) or a rollout run's sessions (rewards).
import type { Command } from 'commander';
import { addTaskSetOptions, type TaskSetFlags } from '../task-set-options.js';
import { type ContainerLimitFlags, parseCpus, parseMemory, parsePids } from '../container-limit-options.js';
import { availableParallelism } from 'node:os';
import { parseIntegerOption, parseSecondsOption } from '../parse-number-option.js';

export interface EvalFlags extends ContainerLimitFlags, TaskSetFlags {
  dataset?: string;
  predictions?: string;
  instance?: string[];
  run?: string;
  db?: string;
  concurrency: number;
  timeout: number;
  runId?: string;
  reportDir?: string;
  report?: string;
  reevaluate?: boolean;
  json?: boolean;
}

/** Like the official guide: at most 75% of the cores, and the official default of 4 at most. */
const DEFAULT_CONCURRENCY = Math.max(1, Math.min(4, Math.floor(availableParallelism() * 0.75)));

export function registerEvalCommand(program: Command): void {
  const evalCommand = program.command('eval').description('Evaluate patches');
  const swebench = evalCommand
    .command('swebench')
    .description('Evaluate patches as swebench.harness does: a predictions file, or the sessions of a rollout run (stores rewards)')
    .option('--dataset <file|owner/name[:split]>', 'SWE-bench records (JSON, JSONL or parquet file), or a Hugging Face Hub dataset (with --predictions)')
    .option('--predictions <file>', 'predictions: JSONL, JSON list or dict by instance_id; "gold" uses the dataset patches')
    .option('--instance <id...>', 'only these instance ids')
    .option('--run <run>', "evaluate this rollout run's sessions and store reward and verdict on each")
    .option('--db <file>', 'SQLite database for --run (default: $POLAR_DB or ./polar.db)')
    .option('--concurrency <n>', 'containers evaluated at the same time', parseIntegerOption('--concurrency', 1), DEFAULT_CONCURRENCY)
    .option('--timeout <seconds>', 'timeout of one eval.sh run', parseSecondsOption('--timeout'), 1800)
    .option('--run-id <id>', 'names this evaluation: summary file name and report cache (default: eval-<time>)')
    .option('--report-dir <dir>', 'per-instance folders (default: logs/run_evaluation/<run-id>)')
    .option('--report <file>', 'summary file (default: <report-dir>/<model>.<run-id>.json)')
    .option('--reevaluate', 'with --run: also sessions that already have a verdict')
    .option('--json', 'print the summary as JSON on stdout (progress goes to stderr)')
    .option('--cpus <n>', 'CPUs per evaluation container (default: no limit)', parseCpus)
    .option('--memory <size>', 'memory per evaluation container, e.g. 8g (default: no limit)', parseMemory)
    .option('--pids-limit <n>', 'processes per evaluation container (default: no limit)', parsePids);
  addTaskSetOptions(swebench)
    .action(async (flags: EvalFlags) => (await import('./eval-action.js')).evalSwebenchAction(flags));
}
