// `polar engine calibrate`: measure an engine's peak tokens/s at full batch and store it for later runs
// (their effective GPU utilisation is measured against it). Flags only; the action is in engine-calibrate-action.ts.
import type { Command } from 'commander';
import { parseIntegerOption, parseSecondsOption } from '../parse-number-option.js';
import { ENGINE_FLAG_HELP } from '../upstream-specs.js';

export interface EngineCalibrateFlags {
  upstream: string;
  engine?: string;
  model?: string;
  duration: number;
  warmup: number;
  concurrency: number;
  promptTokens: number;
  maxTokens: number;
  save: boolean;
  json?: boolean;
}

export function registerEngineCalibrateCommand(engine: Command): void {
  engine
    .command('calibrate')
    .description("Measure the engine's peak processed tokens/s with a synthetic full-batch load, from its own /metrics, and store it for later runs")
    .requiredOption('--upstream <url>', 'vLLM or SGLang OpenAI base URL (…/v1), or sim:<policy>?gpu=<profile> (compares with the profile)')
    .option('--engine <name>', ENGINE_FLAG_HELP)
    .option('--model <name>', 'served model (required when the server serves several)')
    .option('--duration <seconds>', 'how long the load runs', parseSecondsOption('--duration', 2), 60)
    .option('--warmup <seconds>', 'first part of the load left out of the measurement', parseSecondsOption('--warmup', 0), 10)
    .option('--concurrency <n>', 'requests kept in flight', parseIntegerOption('--concurrency', 1), 128)
    .option('--prompt-tokens <n>', 'tokens of each synthetic prompt (the engine\'s own ids; capped by the context window)', parseIntegerOption('--prompt-tokens', 16), 4096)
    .option('--max-tokens <n>', 'tokens each request generates at most', parseIntegerOption('--max-tokens', 1), 16)
    .option('--no-save', 'print the measurement without storing it')
    .option('--json', 'print the result as JSON')
    .action(async (flags: EngineCalibrateFlags) => (await import('./engine-calibrate-action.js')).engineCalibrateAction(flags));
}
