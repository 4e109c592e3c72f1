// `polar view`: the read-only web viewer over the store. Light registration; the server is imported when run.
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { parseIntegerOption, parsePortOption } from '../parse-number-option.js';

interface ViewOptions {
  db?: string;
  port: number;
  host: string;
  open?: boolean;
  upstream?: string;
  nice: number;
}

function parseNiceOption(value: string): number {
  const nice = parseIntegerOption('--nice', 0)(value);
  if (nice > 19) throw new UsageError(`--nice must be an integer from 0 to 19, got "${value}"`);
  return nice;
}

export function registerViewCommand(program: Command): void {
  program
    .command('view')
    .description('Serve a read-only web viewer of runs, sessions and trajectories (safe next to a live rollout)')
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--port <n>', 'port to listen on (0 = any free port)', parsePortOption(), 8200)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--open', 'open the viewer in the default browser')
    .option('--upstream <url>', 'vLLM server whose /detokenize gives token text for non-simulated runs')
    .option('--nice <n>', 'CPU niceness of the viewer process, 0-19 (it yields to a rollout on the same machine)', parseNiceOption, 10)
    .action(async (options: ViewOptions) => {
      const { runViewCommand } = await import('./view-action.js');
      await runViewCommand(options);
    });
}
