// Registry of this process's live containers, removed on Ctrl-C, SIGTERM, errors or exit.
// Hooks are installed only by installExitCleanup(), called from cli/; nothing here exits the process.

/** What the registry needs from a container (ContainerHandle satisfies it). */
export interface CleanupTarget {
  readonly id: string;
  remove(): Promise<void>;
  removeDetached(): void;
}

/** Outcome of `cleanupAll`. */
export interface CleanupReport {
  removed: string[];
  failed: { id: string; error: unknown }[];
}

const live = new Set<CleanupTarget>();

/** Remembers a container for cleanup; returns a function that forgets it again. */
export function registerForCleanup(target: CleanupTarget): () => void {
  live.add(target);
  return () => unregisterFromCleanup(target);
}

/** Forgets a container (called when it was removed normally). */
export function unregisterFromCleanup(target: CleanupTarget): void {
  live.delete(target);
}

/** Ids of the containers currently registered. */
export function registeredContainerIds(): string[] {
  return [...live].map((target) => target.id);
}

/** Removes every registered container in parallel; never throws, reports what failed. */
export async function cleanupAll(): Promise<CleanupReport> {
  const targets = [...live];
  const results = await Promise.allSettled(targets.map((target) => target.remove()));
  const report: CleanupReport = { removed: [], failed: [] };
  results.forEach((result, index) => {
    const target = targets[index];
    if (target === undefined) return;
    live.delete(target);
    if (result.status === 'fulfilled') report.removed.push(target.id);
    else report.failed.push({ id: target.id, error: result.reason });
  });
  return report;
}

/** Options of `installExitCleanup`. */
export interface ExitCleanupOptions {
  /**
   * Called on each listed signal with the cleanup in progress. The caller decides what happens next
   * (typically: await it, then exit with 130). Installing a listener replaces Node's default
   * "terminate on signal", so the caller must end the process itself.
   */
  onSignal: (signal: NodeJS.Signals, cleanup: Promise<CleanupReport>) => void;
  /** Default SIGINT, SIGTERM, SIGHUP. */
  signals?: readonly NodeJS.Signals[];
}

/**
 * Installs signal handlers (async cleanup, handed to `onSignal`) and an `exit` handler (containers still
 * registered at exit are removed by a detached helper process). Returns a function that uninstalls them.
 */
export function installExitCleanup(options: ExitCleanupOptions): () => void {
  let inFlight: Promise<CleanupReport> | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    inFlight ??= cleanupAll().finally(() => {
      inFlight = undefined;
    });
    options.onSignal(signal, inFlight);
  };
  const onExit = (): void => {
    for (const target of live) target.removeDetached();
    live.clear();
  };
  const signals = options.signals ?? ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) process.on(signal, onSignal);
  process.on('exit', onExit);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('exit', onExit);
  };
}
