// `polar export jsonl`: a run as training rows (polar, verl, openrlhf), SFT conversations or SWE-bench predictions.
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { EXPORT_FORMATS, type ExportFormat } from '../../export/export-format.js';
import { ADVANTAGE_ESTIMATORS, type AdvantageEstimator, type StdKind } from '../../trajectory/compute-advantages.js';
import { TRAJECTORY_BUILDERS, type TrajectoryBuilderName } from '../../trajectory/trajectory-row.js';
import { DEFAULT_LINEAGE_WEIGHTS, parseLineageWeights, type LineageWeights } from '../../export/lineage-weights.js';
import { parseIntegerOption } from '../parse-number-option.js';

export interface ExportFlags {
  run: string;
  builder: TrajectoryBuilderName;
  format: ExportFormat;
  advantage: AdvantageEstimator;
  std: StdKind;
  output: string;
  db?: string;
  messages: boolean;
  minReward: number;
  sample: number;
  modelName?: string;
  allowMixed?: boolean;
  lineageWeights: LineageWeights;
}

export function registerExportCommand(program: Command): void {
  const exportCommand = program.command('export').description('Export captured runs');
  exportCommand
    .command('jsonl')
    .description('Write a run as JSONL, one record per line, streamed (schema in every record)')
    .requiredOption('--run <run>', 'run name or id (see polar runs list)')
    .addOption(new Option('--builder <name>', 'how calls become rows').choices(TRAJECTORY_BUILDERS).default('prefix_merging'))
    .addOption(new Option('--format <name>', 'record shape').choices(EXPORT_FORMATS).default('polar'))
    .addOption(new Option('--advantage <name>', 'group advantage estimator (none: advantage 0, and sessions never graded are exported with reward and advantage null)').choices(ADVANTAGE_ESTIMATORS).default('grpo'))
    .addOption(new Option('--std <kind>', 'std that grpo divides by (sample = verl/OpenRLHF)').choices(['population', 'sample']).default('population'))
    .requiredOption('-o, --output <file>', 'output file, or - for stdout')
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--no-messages', 'polar format: leave out the chat messages and tools of each row')
    .option('--min-reward <r>', 'sft: smallest reward of an accepted session', parseReward, 1)
    .option('--sample <k>', 'swebench-predictions: which sample of each task', parseIntegerOption('--sample', 0), 0)
    .option('--model-name <name>', 'swebench-predictions: model_name_or_path (default polar/<run>)')
    .option('--lineage-weights <spec>', 'loss weight per lineage kind, shared by its rows (main, sub-agent, side, title, quota, summary)', parseLineageWeights, DEFAULT_LINEAGE_WEIGHTS)
    .option('--allow-mixed', 'export a run whose sessions mix the simulator and a real upstream')
    .action(async (flags: ExportFlags) => (await import('./export-action.js')).exportJsonlAction(flags));
}

function parseReward(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new UsageError(`--min-reward must be a number, got "${value}"`);
  return parsed;
}
