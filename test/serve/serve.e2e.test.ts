// `polar serve` end to end: a real `polar serve` process, real Docker, the real Pi harness, polar's
// simulator as the model (in this process, so its in-flight counter is the upstream's truth). Two batches
// with results taken while the second runs, a pause with nothing in flight upstream, a resume with the next
// policy version, kill -9 of the server mid-batch and a restart on the same db (every session exactly once),
// and a cancel that leaves no container.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goldPatch } from '../../src/eval/swebench/families/gold-patch.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter } from '../../src/runtime/labels.js';
import { openStore } from '../../src/store/open-store.js';
import { oraclePolicy } from '../../src/sim/policies/oracle.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { until } from '../helpers/until.js';

const TOKEN = 'serve-e2e-token';
const runtime: ContainerRuntime | undefined = await dockerForTests();

describe.skipIf(runtime === undefined)('polar serve end to end (Docker, real Pi, simulator)', () => {
  let dir: string;
  let db: string;
  let sim: SimServer;
  let base: SwebenchRecord;
  let child: ResultPromise | undefined;
  let url = '';

  const row = (n: number) => ({ ...base, instance_id: `polar-example__serve-${n}`, image: instanceImageName(base) });

  async function startServer(): Promise<void> {
    ({ child, url } = await spawnServe(['--upstream', sim.url, '--db', db, '--token', TOKEN, '--timeout', '120', '--concurrency', '2', '--max-batches', '1'], path.join(dir, 'serve.log'), { append: true }));
  }

  async function api(method: string, route: string, body?: unknown): Promise<any> {
    const send = () =>
      fetch(`${url}${route}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    // One retry: a pooled keep-alive socket the server has just closed fails the first try.
    const response = await send().catch(() => sleep(100).then(send)).catch((error: unknown) => {
      throw new Error(`${method} ${route} failed (${String(error)}); polar serve stderr:\n${readFileSync(path.join(dir, 'serve.log'), 'utf8').slice(-3000)}`);
    });
    const text = await response.text();
    return route.includes('/results') ? { text, cursor: response.headers.get('polar-next-cursor') } : JSON.parse(text);
  }

  const waitFor = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 240_000) =>
    until(probe, {
      what,
      timeoutMs,
      everyMs: 200,
      context: async () => `${JSON.stringify(await api('GET', '/v1/rollouts').catch((error: unknown) => String(error)))}\n${readFileSync(path.join(dir, 'serve.log'), 'utf8').slice(-2000)}`,
    });

  beforeAll(async () => {
    base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: instanceImageName(base), baseCommit: base.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-e2e-'));
    db = path.join(dir, 'polar.db');
    sim = await startSimServer({ policy: oraclePolicy([{ instanceId: base.instance_id, problemStatement: base.problem_statement, patch: goldPatch(base) }]), latency: { firstTokenMs: 300, perTokenMs: 2 } });
  }, 120_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    await child;
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('two batches, results while the second runs, pause/resume, kill -9 + restart, cancel', async () => {
    await startServer();
    const a = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(1)], samples: 2, policy_version: 0 });
    const b = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(2)], samples: 2, policy_version: 0 });
    expect(a.id).toMatch(/^b_/);

    // A's group arrives as rows while B is still running.
    const first = await waitFor('batch A results', async () => {
      const got = await api('GET', `/v1/rollouts/${a.id}/results?format=polar&builder=prefix_merging`);
      return got.text.trim() === '' ? undefined : got;
    });
    const rows = first.text.trim().split('\n').map((line: string) => JSON.parse(line));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rows.map((r: { group_id: string }) => r.group_id))).toEqual(new Set([`serve-${a.id}/polar-example__serve-1`]));
    // One batch at a time (--max-batches 1): B is still waiting or running while A's rows are taken.
    expect(['queued', 'running']).toContain((await api('GET', `/v1/rollouts/${b.id}`)).status);

    // Pause as soon as A has delivered, before B's agents reach the model (waiting for one of B's calls first
    // raced: on a fast machine B's last call could be the one drained, leaving nothing to send after the
    // resume). B's agents start and their calls are held at the gateway; nothing reaches the upstream.
    const paused = await api('POST', '/v1/generation/pause', { drain_timeout_ms: 30_000 });
    expect(paused).toMatchObject({ paused: true, drained: true });
    const statusPaused = await waitFor('a held call of batch B', async () => {
      const status = await api('GET', '/v1/status');
      return status.generation.held > 0 ? status : undefined;
    });
    expect(statusPaused.generation).toMatchObject({ paused: true, supported: true });
    // Both batches ran in the server's one gateway: its replica has served A's calls and is now holding B's (a
    // gateway per batch would have closed with A, and B's would report none of A's).
    const storeAtPause = openStore(db, { readonly: true });
    const callsOf = (batch: string) => storeAtPause.runs.sessions(storeAtPause.runs.get(`serve-${batch}`)!.id).reduce((sum, s) => sum + storeAtPause.calls.listBySession(s.id).length, 0);
    const [callsA, callsB] = [callsOf(a.id), callsOf(b.id)];
    storeAtPause.close();
    expect(callsA).toBeGreaterThan(0);
    expect(statusPaused.replicas).toHaveLength(1);
    expect(statusPaused.replicas[0].calls).toBeGreaterThanOrEqual(callsA + callsB);
    // The shared scheduler polls the engine's /metrics: the replica reports (a simulator without a GPU profile
    // has no ceiling, so utilisation is unknown and says how to get one).
    expect(statusPaused.engine.replicas).toHaveLength(1);
    expect(statusPaused.engine.replicas[0]).toMatchObject({ url: statusPaused.replicas[0].url, engine: 'vllm', metrics: 'ok', ceiling: null, effective_utilisation: null });
    expect(statusPaused.engine.total.utilisation_unknown).toContain('the simulator has no GPU ceiling without a GPU profile');
    const requestsAtPause = sim.stats.requests;
    for (let i = 0; i < 15; i++) {
      expect(sim.stats.inFlight).toBe(0);
      await sleep(100);
    }
    expect(sim.stats.requests).toBe(requestsAtPause);
    expect(await api('POST', '/v1/generation/resume', { policy_version: 1 })).toMatchObject({ paused: false, policy_version: 1, weights: null });
    await waitFor('a model call after the resume', async () => sim.stats.requests > requestsAtPause || undefined, 30_000);

    // kill -9 mid-batch, then a restart on the same db resumes B under the same id.
    let reader = openStore(db, { readonly: true });
    const runB = reader.runs.get(`serve-${b.id}`)!;
    const doneBefore = reader.runs.sessions(runB.id).filter((s) => s.stage === 'done').map((s) => ({ id: s.id, calls: reader.calls.listBySession(s.id).map((c) => c.id) }));
    reader.close();
    expect(doneBefore.length).toBeLessThan(2);
    child!.kill('SIGKILL');
    expect((await child!).signal).toBe('SIGKILL');
    await startServer();
    const finishedB = await waitFor('batch B finished after the restart', async () => {
      const got = await api('GET', `/v1/rollouts/${b.id}`);
      return got.status === 'finished' ? got : undefined;
    }, 300_000);
    expect(finishedB.sessions).toMatchObject({ total: 2, done: 2 });
    reader = openStore(db, { readonly: true });
    const sessions = reader.runs.sessions(runB.id);
    expect(sessions.map((s) => `${s.instanceId}#${s.sampleIndex}`).sort()).toEqual(['polar-example__serve-2#0', 'polar-example__serve-2#1']);
    expect(sessions.every((s) => s.status === 'completed')).toBe(true);
    for (const before of doneBefore) expect(reader.calls.listBySession(before.id).map((c) => c.id)).toEqual(before.calls);
    // Calls sampled after the resume (and after the restart: the version is in the db) carry version 1.
    const versions = sessions.flatMap((s) => reader.calls.listBySession(s.id).filter((c) => c.seq >= s.firstCallSeq).map((c) => c.policyVersion));
    expect(versions).toContain(1);
    expect((await api('GET', '/v1/status')).generation).toMatchObject({ paused: false, policy_version: 1 });
    reader.close();
    const results = await api('GET', `/v1/rollouts/${b.id}/results?format=verl`);
    expect(results.text.trim().split('\n').length).toBeGreaterThanOrEqual(2);

    // Cancel: the batch ends cancelled and leaves no container behind.
    const c = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(4)], samples: 1 });
    await waitFor('batch C running', async () => (await api('GET', `/v1/rollouts/${c.id}`)).sessions.running > 0 || undefined);
    const cancelled = await api('DELETE', `/v1/rollouts/${c.id}`);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.sessions).toMatchObject({ total: 1, done: 1, by_status: { cancelled: 1 } });
    await waitFor('C containers removed', async () => ((await (runtime as ContainerRuntime).listContainers(runFilter(`serve-${c.id}`))).length === 0) || undefined, 30_000);
    expect((await api('GET', `/v1/rollouts/${a.id}`)).status).toBe('finished');

    // The shared upstream was preflighted with the default sampling; the simulator's logprobs are raw (vLLM's
    // default), so a batch sampling at temperature 0.7 fails as `polar rollout` would exit 3, before any container.
    const hot = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(5)], samples: 1, sampling: { temperature: 0.7 } });
    const failed = await waitFor('the temperature-0.7 batch failed', async () => {
      const got = await api('GET', `/v1/rollouts/${hot.id}`);
      return got.status === 'failed' ? got : undefined;
    }, 60_000);
    expect(failed.status_reason).toMatch(/raw logprobs .* temperature 0\.7/);
    expect((await (runtime as ContainerRuntime).listContainers(runFilter(`serve-${hot.id}`))).length).toBe(0);
  }, 900_000);
});
