// polar serve's tail end to end: a real `polar serve` process, real Docker, the real Pi harness, polar's
// simulator as the model (in this process, vLLM dev mode). Three tasks, target_groups 2.
// cancel: the simulator never answers the third task's model call (the slow tail). At the target the cut stops
// it for real: its call is aborted at the gateway, its container removed, its session cancelled /
// tail_cancelled, listed as excluded, in no row; the batch is finished with the two complete groups.
// carry: the third task's second call waits; at the target the trainer steps (pause keep, reloaded weights,
// version 1, resume); the carried session goes on and its group arrives after the target, its last call's
// tokens at version 1 and its first call's at 0 (staleness in the rows).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { goldPatch } from '../../src/eval/swebench/families/gold-patch.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter } from '../../src/runtime/labels.js';
import { oraclePolicy } from '../../src/sim/policies/oracle.js';
import type { Policy } from '../../src/sim/policy.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { openStore } from '../../src/store/open-store.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { until } from '../helpers/until.js';

const TOKEN = 'serve-tail-e2e-token';
const SLOW_MARKER = 'SLOW-TAIL-MARKER';
const CARRY_MARKER = 'CARRY-TAIL-MARKER';
const runtime: ContainerRuntime | undefined = await dockerForTests();

describe.skipIf(runtime === undefined)('polar serve tail cancel end to end (Docker, real Pi, simulator)', () => {
  let dir: string;
  let db: string;
  let sim: SimServer;
  let base: SwebenchRecord;
  let child: ResultPromise | undefined;
  let url = '';
  /** Model calls of the slow task the simulator received (and never answers). */
  let slowCalls = 0;
  /** The carried task's second call waits for this. */
  let carryHeld = 0;
  let releaseCarry: () => void = () => undefined;
  const carryGate = new Promise<void>((resolve) => (releaseCarry = resolve));

  const row = (n: number, extra: Partial<SwebenchRecord> = {}) => ({ ...base, instance_id: `polar-example__tail-${n}`, image: instanceImageName(base), ...extra });
  const log = () => readFileSync(path.join(dir, 'serve.log'), 'utf8').slice(-3000);

  async function api(method: string, route: string, body?: unknown): Promise<any> {
    const response = await fetch(`${url}${route}`, { method, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await response.text();
    return route.includes('/results') ? { text, groups: response.headers.get('polar-groups') } : JSON.parse(text);
  }

  const waitFor = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 300_000) =>
    until(probe, { what, timeoutMs, everyMs: 250, context: async () => `${JSON.stringify(await api('GET', '/v1/rollouts').catch(String))}\n${log()}` });

  beforeAll(async () => {
    base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: instanceImageName(base), baseCommit: base.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-tail-e2e-'));
    db = path.join(dir, 'polar.db');
    const oracle = oraclePolicy([{ instanceId: base.instance_id, problemStatement: base.problem_statement, patch: goldPatch(base) }]);
    const policy: Policy = async (request, context) => {
      const text = JSON.stringify(request.messages);
      if (text.includes(SLOW_MARKER)) {
        slowCalls += 1;
        return new Promise(() => undefined); // the slowest session: its model call never ends on its own
      }
      if (text.includes(CARRY_MARKER) && request.messages.some((message) => message.role === 'assistant')) {
        carryHeld += 1;
        await carryGate;
      }
      return oracle(request, context);
    };
    sim = await startSimServer({ policy, control: { devMode: true }, latency: { firstTokenMs: 50, perTokenMs: 2 } });
    ({ child, url } = await spawnServe(['--upstream', sim.url, '--db', db, '--token', TOKEN, '--timeout', '300', '--concurrency', '3'], path.join(dir, 'serve.log'), { append: true }));
  }, 180_000);

  afterAll(async () => {
    child?.kill('SIGKILL');
    await child;
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('cuts the slow session at the target: call aborted, container removed, cancelled / tail_cancelled, excluded, no row', async () => {
    const slow = row(3, { problem_statement: `${base.problem_statement}\n\n${SLOW_MARKER}` });
    const submitted = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(1), row(2), slow], samples: 1, target_groups: 2, tail: 'cancel' });
    expect(submitted.id).toMatch(/^b_/);
    const batch = await waitFor('the batch finished at its target', async () => {
      const got = await api('GET', `/v1/rollouts/${submitted.id}`);
      return got.status === 'finished' || got.status === 'failed' ? got : undefined;
    });
    expect(batch.status).toBe('finished');
    expect(slowCalls).toBeGreaterThan(0); // the cut session was in its model call
    expect(batch).toMatchObject({ target_groups: 2, tail: 'cancel', target_reached: true, tail_counts: { complete: 2, cancelled: 1, carried: 0 }, groups: { total: 3, completed: 2 } });
    expect(batch.sessions).toMatchObject({ total: 3, done: 3, by_status: { completed: 2, cancelled: 1 } });
    expect(batch.excluded).toMatchObject([{ instance_id: 'polar-example__tail-3', status: 'cancelled', status_reason: 'tail_cancelled', reason: 'cancelled' }]);
    const results = await api('GET', `/v1/rollouts/${submitted.id}/results`);
    const rows = results.text.trim().split('\n').map((line: string) => JSON.parse(line));
    expect(results.groups).toBe('2');
    expect(rows.some((r: { group_id: string }) => r.group_id.endsWith('tail-3'))).toBe(false);
    // Nothing of the cut session is left running: no model call at the gateway, no container.
    expect((await api('GET', '/v1/status')).generation.in_flight).toBe(0);
    await waitFor('the cut session container removed', async () => ((await (runtime as ContainerRuntime).listContainers(runFilter(`serve-${submitted.id}`))).length === 0) || undefined, 60_000);
    const store = openStore(db, { readonly: true });
    try {
      const run = store.runs.get(`serve-${submitted.id}`)!;
      const cut = store.runs.sessions(run.id).find((s) => s.instanceId === 'polar-example__tail-3')!;
      expect(cut).toMatchObject({ stage: 'done', status: 'cancelled', statusReason: 'tail_cancelled', reward: null });
      expect(store.calls.listBySession(cut.id).every((call) => call.status !== 'ok')).toBe(true);
    } finally {
      store.close();
    }
  }, 600_000);

  it('carries the slow session across the trainer step: target announced, batch running, its group delivered later with version 1 tokens', async () => {
    const carried = row(6, { problem_statement: `${base.problem_statement}\n\n${CARRY_MARKER}` });
    const submitted = await api('POST', '/v1/rollouts', { harness: 'pi', tasks: [row(4), row(5), carried], samples: 1, target_groups: 2, tail: 'carry' });
    const reached = await waitFor('the target', async () => {
      const got = await api('GET', `/v1/rollouts/${submitted.id}`);
      return got.target_reached === true || got.status !== 'running' ? got : undefined;
    });
    expect(reached).toMatchObject({ status: 'running', tail: 'carry', tail_counts: { complete: 2, cancelled: 0, carried: 1 }, groups: { completed: 2 } });
    const atTarget = await api('GET', `/v1/rollouts/${submitted.id}/results`);
    expect(atTarget.groups).toBe('2');
    await waitFor('the carried call at the engine', async () => carryHeld > 0 || undefined, 120_000);
    // The trainer's step: pause keep, new weights, version 1.
    const paused = await fetch(`${url}/v1/generation/pause`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'keep' }) });
    expect(paused.status, await paused.text()).toBe(200);
    expect((await api('POST', '/v1/generation/resume', { policy_version: 1, weights: { kind: 'reload' } })).policy_version).toBe(1);
    releaseCarry();
    const done = await waitFor('the carried group', async () => {
      const got = await api('GET', `/v1/rollouts/${submitted.id}`);
      return got.status !== 'running' ? got : undefined;
    });
    expect(done).toMatchObject({ status: 'finished', target_reached: true, tail_counts: { complete: 2, cancelled: 0, carried: 1 }, groups: { completed: 3 }, excluded: [] });
    const rows = (await api('GET', `/v1/rollouts/${submitted.id}/results?builder=per_request`)).text.trim().split('\n').map((line: string) => JSON.parse(line));
    const late = rows.filter((r: { group_id: string }) => r.group_id.endsWith('tail-6'));
    const early = rows.filter((r: { group_id: string }) => !r.group_id.endsWith('tail-6'));
    expect(late.length).toBeGreaterThanOrEqual(2);
    const versionsOf = (r: { versions: number[] | null; policy_versions: number[] }) => new Set(r.versions ?? r.policy_versions);
    expect(versionsOf(late[0])).toEqual(new Set([0]));
    expect(versionsOf(late.at(-1))).toEqual(new Set([1]));
    expect(early.every((r: { versions: number[] | null; policy_versions: number[] }) => [...versionsOf(r)].every((v) => v === 0))).toBe(true);
  }, 600_000);
});
