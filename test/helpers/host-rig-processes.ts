// Process plumbing of the test host rig (start-host-rig.ts): commands run to completion, daemons started in
// a host's namespaces, and the processes that make up one host (found by its mount namespace and its
// containers' cgroup parent) killed by PID and awaited. Nothing here looks processes up by name.
import { spawn } from 'node:child_process';
import { openSync, readdirSync, readFileSync, readlinkSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Runs a command to its end; rejects with its output when it fails (unless `allowFailure`). */
export function run(command: string, args: readonly string[], options: { allowFailure?: boolean; input?: string } = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => reject(error));
    child.on('close', (code) => {
      const result = { code: code ?? 1, output };
      if (result.code !== 0 && options.allowFailure !== true) reject(new Error(`${command} ${args.join(' ')} failed (${result.code}): ${output.trim()}`));
      else resolve(result);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Starts a long-lived process with its output appended to `logFile`; returns its pid. */
export function startDaemon(command: string, args: readonly string[], logFile: string): number {
  const log = openSync(logFile, 'a');
  const child = spawn(command, args, { stdio: ['ignore', log, log], detached: true });
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  return child.pid;
}

/** True while the pid names a live process (a zombie counts as dead: PID 1 reaps slowly here). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The start time of a process (clock ticks since boot), to tell a reused pid apart; undefined when gone. */
export function startTicksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const value = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The mount namespace of a process (`mnt:[4026532833]`), undefined when it is gone. */
export function mountNamespaceOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return undefined;
  }
}

/** Every live process in the mount namespace `ns` (the host's daemons, shells and container shims). */
export function processesInMountNamespace(ns: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid && mountNamespaceOf(pid) === ns);
}

const CGROUP_ROOT = '/sys/fs/cgroup';

/** Every process under the cgroup `parent` (the host's containers: its dockerd runs with --cgroup-parent). */
export function processesInCgroup(parent: string): number[] {
  const pids = new Set<number>();
  for (const dir of cgroupDirs(parent)) {
    for (const line of safeRead(path.join(dir, 'cgroup.procs')).split('\n')) if (/^\d+$/.test(line)) pids.add(Number(line));
  }
  return [...pids];
}

/** Removes the (empty) cgroup folders below `parent` in every controller, deepest first. */
export function removeCgroups(parent: string): void {
  for (const dir of cgroupDirs(parent).reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // still in use or already gone
    }
  }
}

/** Kills the pids with SIGKILL and waits until every one is dead (or 20 s passed). */
export async function killAndWait(pids: readonly number[]): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + 20_000;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(50);
}

function cgroupDirs(parent: string): string[] {
  const dirs: string[] = [];
  let controllers: string[];
  try {
    controllers = readdirSync(CGROUP_ROOT);
  } catch {
    return dirs;
  }
  for (const controller of controllers) {
    const top = path.join(CGROUP_ROOT, controller, parent);
    const walk = (dir: string): void => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      dirs.push(dir);
      for (const entry of entries) if (entry.isDirectory()) walk(path.join(dir, entry.name));
    };
    walk(top);
  }
  return dirs;
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
