// `polar rollout`: run a harness on SWE-bench-format tasks, one session per task and sample.
import type { Command } from 'commander';
import type { AdmissionMode } from '../../rollout/admission/session-admission.js';
import { ADMISSION_FLAG_HELP, parseAdmissionMode } from '../admission-option.js';
import { type ContainerLimitFlags, parseCpus, parseMemory, parsePids } from '../container-limit-options.js';
import { addSamplingOptions, type SamplingOptionValues } from '../sampling-options.js';
import { addTaskSetOptions, type TaskSetFlags } from '../task-set-options.js';
import { parseIntegerOption, parsePositiveNumberOption, parseSecondsOption } from '../parse-number-option.js';
import { addHostOptions, type HostFlags } from '../host-options.js';
import { collectUpstream, ENGINE_FLAG_HELP, GPU_PEAK_FLAG_HELP, PREFLIGHT_TIMEOUT_FLAG_HELP, TOKEN_IN_FLAG_HELP, TOOL_FORMAT_FLAG_HELP, UPSTREAMS_FILE_HELP } from '../upstream-specs.js';

export interface RolloutFlags extends ContainerLimitFlags, TaskSetFlags, SamplingOptionValues, HostFlags {
  harness?: string;
  dataset?: string;
  resume?: string;
  concurrency?: number;
  admission?: AdmissionMode;
  limit?: number;
  initWorkers?: number;
  postWorkers?: number;
  readyBuffer?: number;
  eval: boolean;
  instance?: string[];
  upstream?: string[];
  upstreamsFile?: string;
  model?: string;
  engine?: string;
  maxTokensCap?: number;
  upstreamTimeout?: number;
  gpuPeakTokensPerSecond?: number;
  tokenIn?: boolean;
  toolFormat?: string;
  maxAttempts?: number;
  pullConcurrency?: number;
  preflightTimeout?: number;
  db?: string;
  runName?: string;
  samples: number;
  timeout: number;
  json?: boolean;
  verbose?: boolean;
}

export function registerRolloutCommand(program: Command): void {
  const command = program
    .command('rollout')
    .description('Run a real harness CLI in a container per task and sample, capturing every model call')
    .option('--harness <name>', 'codex | claude-code | qwen-code | pi | gemini-cli (see polar harness list)')
    .option('--dataset <file|owner/name[:split]>', 'SWE-bench records (JSON, JSONL or parquet file), or a Hugging Face Hub dataset (split test by default)')
    .option('--resume <run>', 'continue an interrupted or killed run (finished sessions are kept)')
    .option('--instance <id...>', 'only these instance ids')
    .option('--upstream <url>', 'required: vLLM or SGLang OpenAI base URL (…/v1), or sim:<policy> (sim:oracle applies the gold patches); repeat it for several replicas of the same model', collectUpstream)
    .option('--upstreams-file <file>', UPSTREAMS_FILE_HELP)
    .option('--engine <name>', ENGINE_FLAG_HELP)
    .option('--model <name>', 'served model to sample (required when the upstream lists several)')
    .option('--max-tokens-cap <n>', 'upper bound on max_tokens sent upstream', parseIntegerOption('--max-tokens-cap', 1))
    .option('--upstream-timeout <seconds>', 'seconds of upstream silence before a call fails (default 600)', parseSecondsOption('--upstream-timeout'))
    .option('--gpu-peak-tokens-per-second <n>', GPU_PEAK_FLAG_HELP, parsePositiveNumberOption('--gpu-peak-tokens-per-second'))
    .option('--token-in', TOKEN_IN_FLAG_HELP)
    .option('--tool-format <format>', TOOL_FORMAT_FLAG_HELP)
    .option('--max-attempts <n>', 'attempts of a session before an infrastructure failure is final (default 3; each retry after an exponential backoff)', parseIntegerOption('--max-attempts', 1))
    .option('--pull-concurrency <n>', 'task images pulled at once (default 2; each pull tried 3 times)', parseIntegerOption('--pull-concurrency', 1))
    .option('--preflight-timeout <seconds>', PREFLIGHT_TIMEOUT_FLAG_HELP, parseSecondsOption('--preflight-timeout'))
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--run-name <name>', 'name of the run (default: <harness>-<time>)')
    .option('--samples <k>', 'sessions per task (a GRPO group)', parseIntegerOption('--samples', 1), 1)
    .option('--timeout <seconds>', 'deadline of one session', parseSecondsOption('--timeout'), 1800)
    .option('--limit <m>', 'at most this many tasks', parseIntegerOption('--limit', 1))
    .option('--concurrency <n>', 'agents running at once (the model-facing pool): with --admission engine (the default) the most, by default what the host holds; with fixed exactly, default 4', parseIntegerOption('--concurrency', 1))
    .option('--admission <mode>', ADMISSION_FLAG_HELP, parseAdmissionMode)
    .option('--init-workers <n>', 'container set-up pool size (default 2 x the agents, at least 2, at most 8 per CPU core)', parseIntegerOption('--init-workers', 1))
    .option('--post-workers <n>', 'patch/evaluation/teardown pool size (default as --init-workers)', parseIntegerOption('--post-workers', 1))
    .option('--ready-buffer <n>', 'prepared containers waiting for a run slot (default: the agents)', parseIntegerOption('--ready-buffer', 1))
    .option('--no-eval', 'do not evaluate the patches (SWE-bench) in the post stage')
    .option('--json', 'print one JSON event per line')
    .option('--verbose', 'also print each session\'s phase times and the engine totals with what they could not measure')
    .option('--cpus <n>', 'CPUs per session container (default 2)', parseCpus)
    .option('--memory <size>', 'memory per session container, e.g. 4g or 512m (default 4g)', parseMemory)
    .option('--pids-limit <n>', 'processes per session container (default 4096)', parsePids);
  addHostOptions(command);
  addSamplingOptions(command, 'temperature 1, top_p 1, top_k off, min_p 0: on-policy GRPO');
  addTaskSetOptions(command)
    .action(async (flags: RolloutFlags) => (await import('./rollout-action.js')).rolloutAction(flags));
}
