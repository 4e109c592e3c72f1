// Tells whether the process that owns a container is still alive (same host, pid exists, not reused).

import { readFileSync } from 'node:fs';
import { localHostName, type ContainerOwner } from './labels.js';

/** Liveness of a container's owner: `unknown` when it ran on another host. */
export type OwnerLiveness = 'alive' | 'dead' | 'unknown';

/** Probes used by `ownerLiveness`; injectable for tests. */
export interface ProcessProbe {
  hostname: string;
  /** True when a process with this pid exists (even if owned by another user). */
  pidExists(pid: number): boolean;
  /** Start time of the pid in clock ticks since boot, undefined when unknown. */
  startTicks(pid: number): number | undefined;
}

/** The owner record of the current process. */
export function currentOwner(probe: ProcessProbe = localProcessProbe()): ContainerOwner {
  const startTicks = probe.startTicks(process.pid);
  return { pid: process.pid, host: probe.hostname, ...(startTicks !== undefined ? { startTicks } : {}) };
}

/** Decides whether `owner` still runs. A pid that now belongs to a later-started process counts as dead. */
export function ownerLiveness(owner: ContainerOwner, probe: ProcessProbe = localProcessProbe()): OwnerLiveness {
  if (owner.host !== probe.hostname) return 'unknown';
  if (!probe.pidExists(owner.pid)) return 'dead';
  if (owner.startTicks === undefined) return 'alive';
  const actual = probe.startTicks(owner.pid);
  return actual === undefined || actual === owner.startTicks ? 'alive' : 'dead';
}

/** The real probe: os hostname, `process.kill(pid, 0)`, and /proc/<pid>/stat on Linux. */
export function localProcessProbe(): ProcessProbe {
  return { hostname: localHostName(), pidExists, startTicks: readStartTicks };
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may contain spaces). */
function readStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
