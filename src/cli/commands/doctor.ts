// `polar doctor`: every upstream preflight check as a table (or JSON), exit code of the first fatal one.
import type { Command } from 'commander';
import { parseSecondsOption } from '../parse-number-option.js';
import { addSamplingOptions, type SamplingOptionValues } from '../sampling-options.js';
import { ENGINE_FLAG_HELP } from '../upstream-specs.js';
import { addHostOptions, type HostFlags } from '../host-options.js';

export interface DoctorOptions extends SamplingOptionValues, HostFlags {
  upstream?: string;
  image?: string[];
  model?: string;
  engine?: string;
  tokenIn?: boolean;
  json?: boolean;
  timeout: number;
  nonStreamingUpstream?: boolean;
  control?: string;
}

export function registerDoctorCommand(program: Command): void {
  const command = program
    .command('doctor')
    .description('Check an upstream model server the way a rollout preflight does, and/or Docker hosts (--hosts) the way admission does; print every check with its fix')
    .option('--upstream <url>', 'vLLM or SGLang OpenAI base URL (e.g. http://127.0.0.1:8000/v1) or sim:<policy>[?option=value&…]')
    .option('--engine <name>', ENGINE_FLAG_HELP)
    .option('--token-in', 'a run would use --token-in (SGLang without chat token ids is then usable through /generate)')
    .option('--model <name>', 'the model a run would use (required when the server serves several)')
    .option('--non-streaming-upstream', 'the gateway would capture non-streaming upstream (dropped streamed ids only warn)')
    .option('--control <features>', 'engine control the run needs, comma-separated: pause-keep, pause-abort, sleep, weights-reload, weights-lora, weights-disk, weights-pushed (a server without one fails with exit 3 and the fix)')
    .option('--timeout <seconds>', 'upper bound for all checks', parseSecondsOption('--timeout'), 20)
    .option('--json', 'print the upstream profile (with every check) as JSON')
    .option('--image <ref...>', 'with --hosts: images a run would need (each host says which it has)');
  addHostOptions(command);
  addSamplingOptions(command, 'temperature 1, top_p 1, top_k off, min_p 0 (the rollout default)');
  command.action(async (options: DoctorOptions) => (await import('./doctor-action.js')).doctorAction(options));
}
