// The action of `polar view`: open the store read-only, serve, print the address, wait for Ctrl-C.
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { resolveDbPath } from '../../config/paths.js';
import { startViewServer } from '../../view/start-view-server.js';
import { printError, printLine } from '../output.js';
import { waitForShutdown } from '../wait-for-shutdown.js';

export interface ViewCommandOptions {
  db?: string;
  port: number;
  host: string;
  open?: boolean;
  upstream?: string;
  /** Niceness to run at (0: unchanged). */
  nice?: number;
}

function openBrowser(url: string): void {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => printError(`could not start ${command}; open ${url} yourself`));
  child.unref();
}

export async function runViewCommand(options: ViewCommandOptions): Promise<void> {
  const dbPath = resolveDbPath(options.db);
  // A viewer hammered by a browser must not slow a rollout's gateway on the same cores: it runs niced.
  if (options.nice !== undefined && options.nice > 0 && getPriority() < options.nice) {
    try {
      setPriority(options.nice);
    } catch (error) {
      printError(`could not lower the viewer's CPU priority (${(error as Error).message}); it runs at normal priority`);
    }
  }
  const server = await startViewServer({ dbPath, port: options.port, host: options.host, ...(options.upstream === undefined ? {} : { upstream: options.upstream }) });
  try {
    printLine(`polar view on ${server.url} (read-only: ${dbPath})`);
    printLine('Ctrl-C stops it.');
    if (options.open) openBrowser(server.url);
    await waitForShutdown();
  } finally {
    await server.close();
  }
}
