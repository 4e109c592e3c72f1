// `polar proxy`: the capturing gateway as a standalone server, behind the same preflight as a rollout.
import type { Command } from 'commander';
import { parseIntegerOption, parsePortOption, parseSecondsOption } from '../parse-number-option.js';
import { collectUpstream, ENGINE_FLAG_HELP, TOKEN_IN_FLAG_HELP, TOOL_FORMAT_FLAG_HELP, UPSTREAM_FLAG_HELP, UPSTREAMS_FILE_HELP } from '../upstream-specs.js';
import { addSamplingOptions, type SamplingOptionValues } from '../sampling-options.js';

export interface ProxyOptions extends SamplingOptionValues {
  upstream?: string[];
  upstreamsFile?: string;
  healthInterval: number;
  host: string;
  port: number;
  socket?: string;
  db?: string;
  model?: string;
  engine?: string;
  maxTokensCap?: number;
  upstreamTimeout: number;
  maxBodyBytes: number;
  headerTimeout: number;
  bodyTimeout: number;
  maxSessionCalls: number;
  quiet?: boolean;
  recordUpstreamResponse?: boolean;
  preflight: boolean;
  nonStreamingUpstream?: boolean;
  tokenIn?: boolean;
  toolFormat?: string;
}

export function registerProxyCommand(program: Command): void {
  const command = program
    .command('proxy')
    .description('Run the gateway: harnesses call it as OpenAI / Anthropic / Google; it forwards to vLLM and records every token')
    .option('--upstream <url>', `required: ${UPSTREAM_FLAG_HELP}`, collectUpstream)
    .option('--upstreams-file <file>', UPSTREAMS_FILE_HELP)
    .option('--engine <name>', ENGINE_FLAG_HELP)
    .option('--health-interval <seconds>', 'seconds between health checks of each replica when there are several (0 = none)', parseSecondsOption('--health-interval', 0), 5)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0 = any free port)', parsePortOption(), 8100)
    .option('--socket <path>', 'also listen on this Unix socket')
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--model <name>', 'model name sent upstream (required when the upstream serves several)')
    .option('--max-tokens-cap <n>', 'upper bound for max_tokens sent upstream', parseIntegerOption('--max-tokens-cap', 1))
    .option('--upstream-timeout <seconds>', 'seconds of upstream silence before a call fails', parseSecondsOption('--upstream-timeout'), 600)
    .option('--max-body-bytes <n>', 'largest accepted request body', parseIntegerOption('--max-body-bytes', 1024, 2 ** 31 - 1), 32 * 1024 * 1024)
    .option('--header-timeout <seconds>', 'seconds a client may take to send its request headers', parseSecondsOption('--header-timeout'), 60)
    .option('--body-timeout <seconds>', 'seconds a client may pause while sending its request body (0 = no limit)', parseSecondsOption('--body-timeout', 0), 30)
    .option('--max-session-calls <n>', 'model calls one session may have in flight; more get a 429', parseIntegerOption('--max-session-calls', 1), 64)
    .option('--non-streaming-upstream', 'capture streaming calls non-streaming upstream and stream to the client (vLLM 0.10.2–~0.12; SGLang chat always is, its token-in /generate only with this flag)')
    .option('--token-in', TOKEN_IN_FLAG_HELP)
    .option('--tool-format <format>', TOOL_FORMAT_FLAG_HELP)
    .option('--no-preflight', 'skip the upstream checks at start (e.g. the model server is not up yet)')
    .option('--quiet', 'do not print a line per call')
    .option('--record-upstream-response', 'also store the upstream response bytes of successful calls (they repeat the stored token ids)');
  addSamplingOptions(command, 'temperature 1, top_p 1, top_k off, min_p 0 on every call');
  command.action(async (options: ProxyOptions) => (await import('./proxy-action.js')).proxyAction(options));
}
