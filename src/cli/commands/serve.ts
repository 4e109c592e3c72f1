// `polar serve`: the rollout service a trainer talks to over HTTP (submit / poll / stream / cancel / callbacks,
// pause / resume around weight syncs). Flags only; the action is in serve-action.ts.
import type { Command } from 'commander';
import type { AdmissionMode } from '../../rollout/admission/session-admission.js';
import { ADMISSION_FLAG_HELP, parseAdmissionMode } from '../admission-option.js';
import { type ContainerLimitFlags, parseCpus, parseMemory, parsePids } from '../container-limit-options.js';
import { parseIntegerOption, parsePortOption, parsePositiveNumberOption, parseSecondsOption } from '../parse-number-option.js';
import { collectHost, HOSTS_FILE_HELP } from '../host-options.js';
import { addSamplingOptions, type SamplingOptionValues } from '../sampling-options.js';
import { collectUpstream, ENGINE_FLAG_HELP, GPU_PEAK_FLAG_HELP, PREFLIGHT_TIMEOUT_FLAG_HELP, TOOL_FORMAT_FLAG_HELP, UPSTREAM_FLAG_HELP, UPSTREAMS_FILE_HELP } from '../upstream-specs.js';

/** `polar serve --token-in`: the default of every batch that names no `capture`. */
const SERVE_TOKEN_IN_HELP =
  'batches capture in token-in mode unless they send "capture": "chat" (calls continuing a lineage go upstream as its exact tokens: one row per lineage); without it batches capture the chat way unless they send "capture": "token_in"';

export interface ServeFlags extends ContainerLimitFlags, SamplingOptionValues {
  /** The listen address and/or `ssh://` Docker hosts (see serveAction). */
  host?: string[];
  hosts?: string;
  port: number;
  upstream?: string[];
  upstreamsFile?: string;
  db?: string;
  token?: string;
  model?: string;
  engine?: string;
  maxTokensCap?: number;
  upstreamTimeout?: number;
  gpuPeakTokensPerSecond?: number;
  tokenIn?: boolean;
  toolFormat?: string;
  preflightTimeout?: number;
  concurrency?: number;
  admission?: AdmissionMode;
  maxBatches: number;
  maxStaleness?: number;
  policyVersion?: number;
  timeout: number;
  maxAttempts?: number;
  eval: boolean;
  maxBodyBytes: number;
  json?: boolean;
  verbose?: boolean;
}


export function registerServeCommand(program: Command): void {
  const command = program
    .command('serve')
    .description('Serve rollouts over HTTP to a trainer: batches in, completed groups out as export rows; pause/resume around weight syncs')
    .option('--host <host>', 'address to listen on (loopback by default); or ssh://user@host[:port]: a Docker host to run sessions on, reached over SSH (repeatable)', collectHost)
    .option('--hosts <file>', HOSTS_FILE_HELP)
    .option('--port <n>', 'port to listen on (0 = any free port)', parsePortOption(), 8080)
    .option('--upstream <url>', UPSTREAM_FLAG_HELP, collectUpstream)
    .option('--upstreams-file <file>', UPSTREAMS_FILE_HELP)
    .option('--engine <name>', ENGINE_FLAG_HELP)
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db); a restart on it resumes every unfinished batch')
    .option('--token <token>', 'bearer token of the API (default: $POLAR_SERVE_TOKEN, else generated and printed to stderr)')
    .option('--model <name>', 'served model to sample (required when the upstream lists several)')
    .option('--max-tokens-cap <n>', 'upper bound on max_tokens sent upstream', parseIntegerOption('--max-tokens-cap', 1))
    .option('--upstream-timeout <seconds>', 'seconds of upstream silence before a call fails (default 600)', parseSecondsOption('--upstream-timeout'))
    .option('--gpu-peak-tokens-per-second <n>', GPU_PEAK_FLAG_HELP, parsePositiveNumberOption('--gpu-peak-tokens-per-second'))
    .option('--token-in', SERVE_TOKEN_IN_HELP)
    .option('--tool-format <format>', TOOL_FORMAT_FLAG_HELP)
    .option('--preflight-timeout <seconds>', PREFLIGHT_TIMEOUT_FLAG_HELP, parseSecondsOption('--preflight-timeout'))
    .option('--concurrency <n>', 'agents running at once: with --admission engine (the default) the most, by default what the host holds; with fixed exactly, default 4; a batch may ask for fewer of its own', parseIntegerOption('--concurrency', 1))
    .option('--admission <mode>', ADMISSION_FLAG_HELP, parseAdmissionMode)
    .option('--max-batches <n>', 'batches running at once', parseIntegerOption('--max-batches', 1), 2)
    .option('--max-staleness <k>', 'do not start sessions of batches more than k policy versions behind (they wait)', parseIntegerOption('--max-staleness', 0))
    .option('--policy-version <n>', 'policy version at start (default: the highest stored batch\'s, else 0)', parseIntegerOption('--policy-version', 0))
    .option('--timeout <seconds>', 'default deadline of one session', parseSecondsOption('--timeout'), 1800)
    .option('--max-attempts <n>', 'attempts of a session before an infrastructure failure is final (default 3; each retry after an exponential backoff)', parseIntegerOption('--max-attempts', 1))
    .option('--no-eval', 'do not evaluate patches by default (batches may set evaluate)')
    .option('--max-body-bytes <n>', 'largest accepted request body', parseIntegerOption('--max-body-bytes', 1024, 2 ** 31 - 1), 32 * 1024 * 1024)
    .option('--json', 'print one JSON line per engine event')
    .option('--verbose', 'print what the server does as it does it: batches, ended sessions, completed groups, pauses and resumes')
    .option('--cpus <n>', 'CPUs per session container (default 2)', parseCpus)
    .option('--memory <size>', 'memory per session container, e.g. 4g (default 4g)', parseMemory)
    .option('--pids-limit <n>', 'processes per session container (default 4096)', parsePids);
  // The server's sampling, --allow-logprob-mismatch and --eos-token-ids: a batch's own sampling fields and
  // allow_logprob_mismatch win over them.
  addSamplingOptions(command, 'temperature 1, top_p 1, top_k off, min_p 0; a batch\'s sampling fields override it')
    .action(async (flags: ServeFlags) => (await import('./serve-action.js')).serveAction(flags));
}
