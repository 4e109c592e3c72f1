// Runs the polar program in this process (the CLI's `main`), capturing what it prints to stdout and stderr.
import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

export async function runInProcess(args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { exitCode: await main(['node', 'polar', ...args]), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}
