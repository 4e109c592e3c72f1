// Unit tests for the cleanup registry and the opt-in signal/exit hooks (no process is actually signalled).

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanupAll, installExitCleanup, registerForCleanup, registeredContainerIds, type CleanupTarget } from '../../src/runtime/cleanup-on-exit.js';

function target(id: string, fails = false): CleanupTarget & { removals: number; detached: number } {
  const t = {
    id,
    removals: 0,
    detached: 0,
    async remove() {
      t.removals += 1;
      if (fails) throw new Error(`cannot remove ${id}`);
    },
    removeDetached() {
      t.detached += 1;
    },
  };
  return t;
}

afterEach(async () => {
  await cleanupAll();
});

describe('cleanup registry', () => {
  it('removes every registered target once and reports failures', async () => {
    const a = target('a');
    const b = target('b', true);
    const c = target('c');
    registerForCleanup(a);
    registerForCleanup(b);
    const forget = registerForCleanup(c);
    forget();
    expect(registeredContainerIds()).toEqual(['a', 'b']);
    const report = await cleanupAll();
    expect(report.removed).toEqual(['a']);
    expect(report.failed.map((f) => f.id)).toEqual(['b']);
    expect([a.removals, b.removals, c.removals]).toEqual([1, 1, 0]);
    expect(registeredContainerIds()).toEqual([]);
  });

  it('installs nothing until asked', () => {
    const before = process.listenerCount('SIGINT');
    registerForCleanup(target('x'));
    expect(process.listenerCount('SIGINT')).toBe(before);
  });

  it('hands the cleanup promise to onSignal, never exits, and uninstalls', async () => {
    const exit = vi.spyOn(process, 'exit');
    const a = target('a');
    registerForCleanup(a);
    const seen: string[] = [];
    let cleanup: Promise<unknown> | undefined;
    const uninstall = installExitCleanup({
      signals: ['SIGUSR2'],
      onSignal: (signal, promise) => {
        seen.push(signal);
        cleanup = promise;
      },
    });
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(seen).toEqual(['SIGUSR2']);
    await expect(cleanup).resolves.toEqual({ removed: ['a'], failed: [] });
    expect(exit).not.toHaveBeenCalled();
    uninstall();
    expect(process.listeners('SIGUSR2')).toHaveLength(0);
    exit.mockRestore();
  });

  it('on exit hands leftovers to the detached remover', () => {
    const a = target('a');
    registerForCleanup(a);
    const uninstall = installExitCleanup({ signals: [], onSignal: () => {} });
    process.emit('exit', 0);
    uninstall();
    expect(a.detached).toBe(1);
    expect(registeredContainerIds()).toEqual([]);
  });
});
