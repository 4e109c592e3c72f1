// Runs a long command with an AbortSignal that Ctrl-C / SIGTERM trigger; containers registered for
// cleanup are removed before the process goes (a second Ctrl-C exits at once).
import { installExitCleanup } from '../runtime/cleanup-on-exit.js';
import { printError } from './output.js';

export async function withSignalCleanup<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let signals = 0;
  const uninstall = installExitCleanup({
    onSignal: (signal, cleanup) => {
      signals += 1;
      if (signals > 1) {
        printError(`polar: ${signal} again, exiting now`);
        process.exit(130);
      }
      printError(`polar: ${signal}: stopping (sessions in flight end as cancelled, containers are removed)...`);
      controller.abort(new Error(`interrupted by ${signal}`));
      void cleanup;
    },
  });
  try {
    return await work(controller.signal);
  } finally {
    uninstall();
  }
}
