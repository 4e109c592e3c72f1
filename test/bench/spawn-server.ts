// Starts a server as a child process, waits for the URL it prints, and stops it again.
import { type ChildProcess, spawn } from 'node:child_process';
import { trackChild } from './bench-cleanup.js';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** The last few KB the process printed (stdout and stderr), for error messages. */
  recentOutput(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnServerOptions {
  /** Arguments to `node` (flags, script, script arguments). */
  nodeArgs: string[];
  cwd: string;
  /** Matches the printed listening line; group 1 is the URL. */
  urlPattern: RegExp;
  /** What the process is, for error messages. */
  label: string;
  startTimeoutMs?: number;
}

export function spawnServer(options: SpawnServerOptions): Promise<ServerProcess> {
  const child = spawn(process.execPath, options.nodeArgs, { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  trackChild(child);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  const stop = async (graceMs = 10_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const match = options.urlPattern.exec(output);
      if (match?.[1]) {
        cleanup();
        // Keep draining (a chatty child must never block on a full pipe), remembering the tail.
        const keep = (more: Buffer): void => {
          output = (output + more.toString('utf8')).slice(-4000);
        };
        child.stdout?.on('data', keep);
        child.stderr?.on('data', keep);
        resolve({ url: match[1], child, stop, recentOutput: () => output });
      }
    };
    const onExit = (code: number | null, signal: string | null): void => {
      cleanup();
      reject(new Error(`${options.label} exited (${code ?? signal}) before it was ready:\n${output.slice(-2000)}`));
    };
    const timer = setTimeout(() => {
      cleanup();
      void stop(0);
      reject(new Error(`${options.label} printed no listening line within ${options.startTimeoutMs ?? 30_000} ms:\n${output.slice(-2000)}`));
    }, options.startTimeoutMs ?? 30_000);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}
