// `--hosts <file>` and `--host ssh://user@host[:port]` (polar rollout, polar serve, polar doctor, polar gc): the
// Docker hosts sessions run on, reached over SSH. Without either, sessions run on the local engine as before.
// Flags only (loaded at start-up by every command's registration); opening the hosts is open-host-pool.ts.
import type { Command } from 'commander';

export interface HostFlags {
  hosts?: string;
  host?: string[];
}

export const HOSTS_FILE_HELP = 'YAML file listing Docker hosts reached over SSH to run sessions on (ssh, identity, known_hosts, docker_socket, slots, labels; see docs/guide/multi-host.md)';
export const HOST_FLAG_HELP = 'a Docker host to run sessions on, reached over SSH: ssh://user@host[:port] (repeatable; ~/.ssh/known_hosts and your default key)';

/** Adds --hosts and --host (the latter unless the command has its own `--host`). */
export function addHostOptions(command: Command, options: { hostFlag?: boolean } = {}): Command {
  command.option('--hosts <file>', HOSTS_FILE_HELP);
  if (options.hostFlag !== false) command.option('--host <ssh-url>', HOST_FLAG_HELP, collectHost);
  return command;
}

/** Whether --hosts or --host names any host (else sessions run on the local engine). */
export function hasHostFlags(flags: HostFlags): boolean {
  return flags.hosts !== undefined || (flags.host?.length ?? 0) > 0;
}

export function collectHost(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
