// `polar rollout --admission engine` over two simulator replicas with the real Pi harness in Docker: one
// controller per replica, each from its own /metrics. Replica a has a full H100's KV cache, replica b a cache of
// one session; admission places each session on the replica with the most room and the gateway pins its calls
// there, so every call goes to a (the gateway alone would send the second session to b, the least loaded), and
// the metrics events show both replicas' targets.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { createPolicy } from '../../src/sim/create-policy.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();
const TWO_TURNS = { turns: [{ toolCalls: [{ name: 'bash', arguments: { command: 'echo one' } }] }, { content: 'done' }] };

describe.skipIf(runtime === undefined)('engine admission over two replicas (Docker, real Pi, simulated GPUs)', () => {
  let dir: string;
  let store: Store;
  let datasetPath: string;
  let a: SimServer;
  let b: SimServer;

  beforeAll(async () => {
    const [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
    const base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as Record<string, unknown>;
    dir = mkdtempSync(path.join(tmpdir(), 'polar-admission-replicas-e2e-'));
    store = openStore(path.join(dir, 'polar.db'));
    datasetPath = path.join(dir, 'tasks.jsonl');
    writeFileSync(datasetPath, [1, 2, 3].map((n) => JSON.stringify({ ...base, instance_id: `polar-example__placed-${n}`, image: instanceImageName(record) })).join('\n'));
    const script = path.join(dir, 'script.json');
    writeFileSync(script, JSON.stringify(TWO_TURNS));
    a = await startSimServer({ policy: createPolicy(`scripted:${script}`), gpu: { profile: 'qwen3-8b-h100' }, maxModelLen: 16_384 });
    b = await startSimServer({ policy: createPolicy(`scripted:${script}`), gpu: { profile: 'qwen3-8b-h100', kvCacheTokens: 16_384 }, maxModelLen: 16_384 });
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('places every session on the replica with room and pins its calls there; each replica has its own target', async () => {
    const events: RolloutEvent[] = [];
    const { run, counts } = await runRollout(
      { harness: 'pi', datasetPath, upstream: a.url, replicas: [b.url], runName: 'placed', samples: 1, concurrency: 3, admission: 'engine', timeoutSeconds: 120, evaluate: false, preflightTimeoutSeconds: 60 },
      { runtime: runtime as ContainerRuntime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: (event) => events.push(event), metricsIntervalMs: 200 },
    );
    expect(counts).toEqual({ completed: 3 });
    const calls = store.runs.sessions(run.id).flatMap((session) => store.calls.listBySession(session.id));
    expect(calls.length).toBeGreaterThanOrEqual(6);
    // Every call on a: b's controller (a cache of one session of the typical size) never had the most room.
    expect(calls.every((call) => call.upstreamReplica === a.url)).toBe(true);
    const withReplicas = events.flatMap((event) => (event.type === 'metrics' && event.admission?.replicas !== undefined ? [event.admission.replicas] : []));
    expect(withReplicas.length).toBeGreaterThan(0);
    const last = withReplicas.at(-1) ?? [];
    expect(last.map((replica) => replica.replica)).toEqual([a.url, b.url]);
    expect(last[0]?.target).toBeGreaterThan(last[1]?.target ?? Number.POSITIVE_INFINITY);
    expect(last[1]?.kvUsage).not.toBeNull();
  }, 300_000);
});
