// Docker tests for leftovers: gc after a SIGKILLed owner, cleanup on exit, on a crash and on SIGINT.

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../src/runtime/collect-garbage.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter } from '../../src/runtime/labels.js';
import { dockerForTests, TEST_IMAGE, TEST_RUN_ID, testLabels } from './docker-test-support.js';

const runtime = await dockerForTests();
const CHILD = fileURLToPath(new URL('./fixtures/container-owner-child.ts', import.meta.url));

interface Child {
  process: ChildProcess;
  /** Exit code (null when killed by a signal); listened to from the start so no exit is missed. */
  exited: Promise<number | null>;
  id: string;
  lines: string[];
}

/** Starts the fixture child and waits until it printed the id of its container. */
async function startChild(mode: string): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, TEST_RUN_ID, TEST_IMAGE], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr?.resume(); // the 'throw' child prints its crash there
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  reader.on('line', (line) => lines.push(line));
  for (let waited = 0; lines.length === 0; waited += 50) {
    if (waited > 60_000 || (child.exitCode !== null && lines.length === 0)) throw new Error(`child (${mode}) printed no container id`);
    await delay(50);
  }
  const first = JSON.parse(lines[0] ?? '{}') as { id: string };
  return { process: child, exited, id: first.id, lines };
}

async function exists(rt: ContainerRuntime, id: string): Promise<boolean> {
  return (await rt.listContainers(runFilter(TEST_RUN_ID))).some((container) => container.id === id);
}

async function waitUntilGone(rt: ContainerRuntime, id: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (await exists(rt, id)) {
    if (Date.now() - started > timeoutMs) throw new Error(`container ${id} still exists after ${timeoutMs} ms`);
    await delay(50);
  }
  return Date.now() - started;
}

describe.skipIf(runtime === undefined)('leftover containers (real engine)', () => {
  const rt = runtime as ContainerRuntime;

  afterAll(async () => {
    await rt.removeContainers(runFilter(TEST_RUN_ID));
  });

  it('gc removes the container of a SIGKILLed owner and keeps a live owner’s', async () => {
    const mine = await rt.createContainer({ image: TEST_IMAGE, labels: testLabels('gc-live') });
    const child = await startChild('hold');
    expect(await exists(rt, child.id)).toBe(true);
    child.process.kill('SIGKILL');
    await child.exited;
    expect(await exists(rt, child.id)).toBe(true);

    const report = await collectGarbage(rt);
    const removedIds = report.removed.map((decision) => decision.container.id);
    expect(removedIds).toContain(child.id);
    expect(report.removed.find((decision) => decision.container.id === child.id)?.reason).toBe('owner-dead');
    expect(removedIds).not.toContain(mine.id);
    expect(report.kept.find((decision) => decision.container.id === mine.id)?.reason).toBe('owner-alive');
    expect(await exists(rt, child.id)).toBe(false);
    expect(await exists(rt, mine.id)).toBe(true);
    await mine.remove();
  });

  it('gc removes a live owner’s container when its run is no longer live', async () => {
    const mine = await rt.createContainer({ image: TEST_IMAGE, labels: testLabels('gc-run') });
    const report = await collectGarbage(rt, { isRunLive: (runId) => runId !== TEST_RUN_ID });
    expect(report.removed.map((decision) => decision.container.id)).toContain(mine.id);
    expect(await exists(rt, mine.id)).toBe(false);
  });

  it.each(['exit', 'throw'])('a process that ends by %s leaves no container behind', async (mode) => {
    const child = await startChild(mode);
    expect(await child.exited).not.toBe(0);
    const goneAfterMs = await waitUntilGone(rt, child.id, 15_000);
    console.log(`[measure] ${mode}: container gone ${goneAfterMs} ms after the owner exited`);
  });

  it('Ctrl-C hands the cleanup to the caller, which exits after it', async () => {
    const child = await startChild('signal');
    child.process.kill('SIGINT');
    expect(await child.exited).toBe(130);
    expect(JSON.parse(child.lines[1] ?? '{}')).toEqual({ signal: 'SIGINT', removed: [child.id] });
    expect(await exists(rt, child.id)).toBe(false);
  });
});
