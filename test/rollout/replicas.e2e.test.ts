// `polar rollout` over two simulator replicas with the real Pi harness in Docker: one replica is killed
// while it serves a session's call; that session ends its attempt infra_error and is retried on the
// other replica; every session completes once, and every call a replica answered is in the store.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter } from '../../src/runtime/labels.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { createPolicy } from '../../src/sim/create-policy.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();
const THREE_TURNS = { turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo one' } }] }, { toolCalls: [{ name: 'bash', arguments: { command: 'echo two' } }] }, { content: 'done' }] };

describe.skipIf(runtime === undefined)('rollout over two upstream replicas (Docker, real Pi)', () => {
  let dir: string;
  let store: Store;
  let datasetPath: string;
  let a: SimServer;
  let b: SimServer;

  beforeAll(async () => {
    const [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
    const base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as Record<string, unknown>;
    dir = mkdtempSync(path.join(tmpdir(), 'polar-replicas-e2e-'));
    store = openStore(path.join(dir, 'polar.db'));
    datasetPath = path.join(dir, 'tasks.jsonl');
    writeFileSync(datasetPath, [1, 2, 3, 4].map((n) => JSON.stringify({ ...base, instance_id: `polar-example__replica-${n}`, image: instanceImageName(record) })).join('\n'));
    const script = path.join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(THREE_TURNS));
    // Each call takes a while, so the kill below finds one in flight.
    a = await startSimServer({ policy: createPolicy(`scripted:${script}`), latency: { firstTokenMs: 400 } });
    b = await startSimServer({ policy: createPolicy(`scripted:${script}`), latency: { firstTokenMs: 400 } });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('retries the sessions of a killed replica on the other one; nothing is lost', async () => {
    // Kill b as soon as it is serving a session's call (preflight probes do not count).
    let killedAfter = -1;
    const killer = setInterval(() => {
      if (b.stats.counted < 1 || killedAfter >= 0) return;
      killedAfter = b.stats.counted;
      void b.close();
    }, 10);
    let result: Awaited<ReturnType<typeof runRollout>>;
    try {
      result = await runRollout(
        { harness: 'pi', datasetPath, upstream: a.url, replicas: [b.url], runName: 'replicas', samples: 1, concurrency: 4, timeoutSeconds: 60, maxAttempts: 3, retryBackoffMs: 100, evaluate: false, preflightTimeoutSeconds: 60 },
        { runtime: runtime as ContainerRuntime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: () => undefined, metricsIntervalMs: 0 },
      );
    } finally {
      clearInterval(killer);
    }
    const { run, counts } = result;
    expect(killedAfter).toBeGreaterThanOrEqual(1);
    expect(counts).toEqual({ completed: 4 });
    expect(await (runtime as ContainerRuntime).listContainers(runFilter(run.name))).toEqual([]);
    expect(store.runs.get(run.id)?.manifest?.upstream).toMatchObject({ url: a.url, replicas: [a.url, b.url] });

    const sessions = store.runs.sessions(run.id);
    const calls = sessions.flatMap((session) => store.calls.listBySession(session.id).map((call) => ({ session, call })));
    // Every call records its replica; b served some before it died, a all the rest.
    expect(calls.every(({ call }) => call.upstreamReplica === a.url || call.upstreamReplica === b.url)).toBe(true);
    const onB = calls.filter(({ call }) => call.upstreamReplica === b.url);
    expect(onB.length).toBeGreaterThanOrEqual(1);
    // Nothing lost: every session call a answered is in the store, ok.
    const onA = calls.filter(({ call }) => call.upstreamReplica === a.url);
    expect(onA.length).toBe(a.stats.counted);
    expect(onA.every(({ call }) => call.status === 'ok')).toBe(true);
    // The sessions that met the dead replica were retried (a new attempt), and their last attempt ran on a.
    const retried = sessions.filter((session) => session.attempts > 1);
    expect(retried.length).toBeGreaterThanOrEqual(1);
    for (const session of retried) {
      const ownCalls = store.calls.listBySession(session.id);
      expect(ownCalls.some((call) => call.seq < session.firstCallSeq && call.upstreamReplica === b.url && call.status !== 'ok')).toBe(true);
      expect(ownCalls.filter((call) => call.seq >= session.firstCallSeq).every((call) => call.upstreamReplica === a.url && call.status === 'ok')).toBe(true);
    }
    // Every session completed exactly once, with its final attempt's calls all ok.
    for (const session of sessions) expect(session).toMatchObject({ status: 'completed', stage: 'done' });
  });
});
