// `polar gc`: remove every polar container that no live run owns.
import type { Command } from 'commander';
import { addHostOptions, hasHostFlags, type HostFlags } from '../host-options.js';

export function registerGcCommand(program: Command): void {
  const command = program
    .command('gc')
    .description('Remove polar containers and gateway socket folders whose owning polar process is gone (left by a crash or kill -9); with --hosts/--host, on those Docker hosts')
    .option('--dry-run', 'only list what would be removed');
  addHostOptions(command);
  command.action(async (flags: HostFlags & { dryRun?: boolean }) => {
    if (hasHostFlags(flags)) return (await import('./gc-hosts.js')).gcHostsAction(flags);
    return (await import('./gc-action.js')).gcAction(flags);
  });
}
