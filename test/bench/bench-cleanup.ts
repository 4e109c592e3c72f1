// Everything a benchmark leaves behind (child processes, temp dirs), released on any exit path.
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export function trackTempDir(dir: string): void {
  tempDirs.add(dir);
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Synchronous, so it also works from a process 'exit' handler: SIGKILLs children, removes dirs. */
export function releaseAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
