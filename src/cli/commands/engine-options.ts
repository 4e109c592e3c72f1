// The flags every `polar engine` subcommand shares: the replicas (--upstream …, --upstreams-file), their
// family (--engine, else detected) and --json.
import type { Command } from 'commander';
import { collectUpstream, ENGINE_FLAG_HELP, UPSTREAMS_FILE_HELP } from '../upstream-specs.js';

export interface EngineFlags {
  upstream?: string[];
  upstreamsFile?: string;
  engine?: string;
  json?: boolean;
}

export function addEngineOptions(command: Command): Command {
  return command
    .option('--upstream <url>', 'the engine\'s OpenAI base URL (e.g. http://127.0.0.1:8000/v1); repeat it for every replica', collectUpstream)
    .option('--upstreams-file <file>', UPSTREAMS_FILE_HELP)
    .option('--engine <name>', ENGINE_FLAG_HELP)
    .option('--json', 'print the result as JSON');
}
