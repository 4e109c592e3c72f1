// HTTP contract of `polar serve`: every endpoint, with the real engine, store and hono server on a real
// socket; only batch execution is Docker-free (fake-batch-executor.ts).
import { FakeHost } from '../rollout/hosts/fake-sandbox-host.js';
import { HostPool } from '../../src/rollout/hosts/host-pool.js';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OPENAPI_DOCUMENT } from '../../src/serve/openapi-document.js';
import { createServeApp, SERVE_ROUTES } from '../../src/serve/serve-app.js';
import { fixtureRows } from './fake-batch-executor.js';
import { noopPolicy } from '../../src/sim/policies/noop.js';
import { startSimServer } from '../../src/sim/sim-server.js';
import { EngineMetricsPoller } from '../../src/upstream/metrics/engine-metrics-poller.js';
import { startTestServe, TEST_SERVE_TOKEN, type TestServe, type TestServeOptions } from '../helpers/start-test-serve.js';
import { until } from '../helpers/until.js';

const TOKEN = TEST_SERVE_TOKEN;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Harness = TestServe;

async function start(options: TestServeOptions & { dir?: string } = {}): Promise<Harness> {
  const { dir: given, ...rest } = options;
  const dir = given ?? mkdtempSync(path.join(tmpdir(), 'polar-serve-'));
  if (given === undefined) cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return startTestServe(dir, cleanups, { callbacks: { attempts: 3, backoffMs: 20 }, ...rest });
}

const submitBody = () => ({ harness: 'pi', tasks: fixtureRows(), samples: 2, sampling: { temperature: 1 }, policy_version: 0 });

describe('polar serve HTTP API', () => {
  it('shows each Docker host in /v1/status: state, last error, slots, capacity, sessions, images, labels', async () => {
    const [up, down] = [new FakeHost('gpu-a', 4), new FakeHost('gpu-b', 'measured')];
    const pool = new HostPool([up, down]);
    await pool.admit({ architecture: 'x86_64' });
    const lease = await pool.place({ sessionId: 1, group: 'g', image: 'img:1', harness: 'pi' });
    await lease.ensureImage('img:1');
    down.set({ state: 'down', losses: 1, lastError: 'SSH connection lost: Keepalive timeout' });
    const h = await start({ hosts: pool });
    const status = (await h.call('GET', '/v1/status')).json;
    expect(status.hosts).toEqual([
      { name: 'gpu-a', address: 'ssh://root@gpu-a:22', state: 'up', last_error: null, since: new Date(0).toISOString(), losses: 0, slots: 4, capacity: 4, sessions: 1, images: 1, labels: {} },
      { name: 'gpu-b', address: 'ssh://root@gpu-b:22', state: 'down', last_error: 'SSH connection lost: Keepalive timeout', since: new Date(0).toISOString(), losses: 1, slots: 'measured', capacity: 12, sessions: 0, images: 0, labels: {} },
    ]);
  });

  it('refuses a missing or wrong bearer token with 401 JSON, and serves /openapi.json without one', async () => {
    const h = await start();
    for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: `Basic ${TOKEN}` }] as Record<string, string>[]) {
      const response = await fetch(`${h.serve.url}/v1/status`, { headers });
      expect(response.status).toBe(401);
      expect(((await response.json()) as any).error.type).toBe('unauthorized');
    }
    const doc = await fetch(`${h.serve.url}/openapi.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as any).openapi).toBe('3.1.0');
  });

  it('runs a submitted batch: 202 with an id, status and counts, then finished', async () => {
    const h = await start();
    const submitted = await h.call('POST', '/v1/rollouts', submitBody());
    expect(submitted.status).toBe(202);
    expect(submitted.json.id).toMatch(/^b_[0-9a-f]{16}$/);
    const done = await until(async () => {
      const got = await h.call('GET', `/v1/rollouts/${submitted.json.id}`);
      return got.json.status === 'finished' ? got.json : undefined;
    });
    expect(done.sessions).toMatchObject({ total: 4, done: 4, by_status: { completed: 4 } });
    expect(done.groups).toEqual({ total: 2, completed: 2 });
    const list = await h.call('GET', '/v1/rollouts');
    expect(list.json.rollouts.map((batch: { id: string }) => batch.id)).toEqual([submitted.json.id]);
  });

  it.each([
    ['an unknown harness', { ...submitBody(), harness: 'no-such-harness' }, /no harness "no-such-harness"/],
    ['a malformed row', { harness: 'pi', tasks: [{ instance_id: 'x' }] }, /tasks\[0\]/],
    ['a row that is not an object', { harness: 'pi', tasks: [42] }, /tasks\.0/],
    ['no tasks and no dataset', { harness: 'pi' }, /exactly one of tasks/],
    ['an unknown field', { ...submitBody(), sample: 2 }, /sample/],
    ['samples 0', { ...submitBody(), samples: 0 }, /samples/],
    ['an unknown sampling field', { ...submitBody(), sampling: { temprature: 1 } }, /temprature/],
    ['a bad callback url', { ...submitBody(), callback_url: 'ftp://x' }, /callback_url/],
  ])('answers 400 invalid_request for %s', async (_what, body, message) => {
    const h = await start();
    const response = await h.call('POST', '/v1/rollouts', body);
    expect(response.status).toBe(400);
    expect(response.json.error.type).toBe('invalid_request');
    expect(response.json.error.message).toMatch(message);
    expect(h.store.batches.list()).toEqual([]);
  });

  it('answers 400 for a body that is not JSON and 413 for an oversized one', async () => {
    const h = await start({ maxBodyBytes: 4096 });
    const broken = await h.call('POST', '/v1/rollouts', '{"harness":');
    expect(broken.status).toBe(400);
    expect(broken.json.error.message).toMatch(/not JSON/);
    const big = await h.call('POST', '/v1/rollouts', { ...submitBody(), tasks: [{ problem_statement: 'x'.repeat(10_000) }] });
    expect(big.status).toBe(413);
    expect(big.json.error.type).toBe('payload_too_large');
  });

  it('makes a retried submit with the same idempotency key the same batch, and refuses another body with 409', async () => {
    const h = await start({ hold: true });
    const first = await h.call('POST', '/v1/rollouts', submitBody(), { 'idempotency-key': 'step-7' });
    const again = await h.call('POST', '/v1/rollouts', submitBody(), { 'idempotency-key': 'step-7' });
    expect(first.status).toBe(202);
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    const inBody = await h.call('POST', '/v1/rollouts', { ...submitBody(), idempotency_key: 'step-7' });
    expect(inBody.json.id).toBe(first.json.id);
    const other = await h.call('POST', '/v1/rollouts', { ...submitBody(), samples: 3 }, { 'idempotency-key': 'step-7' });
    expect(other.status).toBe(409);
    expect(other.json.error.type).toBe('conflict');
    expect(h.store.batches.list()).toHaveLength(1);
  });

  it('streams completed groups as export rows with a cursor; a group is delivered only when all its samples ended', async () => {
    const h = await start();
    let release: () => void = () => undefined;
    let finished = 0;
    // The first group's two sessions finish, then the second group is held.
    h.fake.gate.wait = () => (finished++ < 2 ? Promise.resolve() : new Promise<void>((resolve) => (release = resolve)));
    const { json } = await h.call('POST', '/v1/rollouts', submitBody());
    await until(() => h.store.batches.groups(json.id).length === 1);
    const first = await h.call('GET', `/v1/rollouts/${json.id}/results?format=polar&builder=prefix_merging`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/application\/x-ndjson/);
    expect(first.headers.get('polar-groups')).toBe('1');
    const rows = first.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.group_id))).toEqual(new Set([`serve-${json.id}/django__django-11099`]));
    const cursor = first.headers.get('polar-next-cursor') as string;
    const empty = await h.call('GET', `/v1/rollouts/${json.id}/results?cursor=${cursor}`);
    expect(empty.text).toBe('');
    expect(empty.headers.get('polar-next-cursor')).toBe(cursor);
    for (let i = 0; i < 2; i++) {
      release();
      await until(() => h.fake.runs.size === 3 + i);
    }
    await until(() => h.store.batches.groups(json.id).length === 2);
    const second = await h.call('GET', `/v1/rollouts/${json.id}/results?cursor=${cursor}&format=verl`);
    const more = second.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(more).toHaveLength(2);
    expect(Number(second.headers.get('polar-next-cursor'))).toBeGreaterThan(Number(cursor));
    const bad = await h.call('GET', `/v1/rollouts/${json.id}/results?format=parquet`);
    expect(bad.status).toBe(400);
    const missing = await h.call('GET', '/v1/rollouts/b_nope/results');
    expect(missing.status).toBe(404);
    expect(missing.json.error.type).toBe('not_found');
  });

  it('completes the groups of a batch run with evaluate:false and serves them with advantage=none (reward null); grpo is refused', async () => {
    const received: any[] = [];
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push(JSON.parse(body));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const h = await start();
    const callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/groups`;
    const { json } = await h.call('POST', '/v1/rollouts', { ...submitBody(), evaluate: false, callback_url: callbackUrl });
    const done = await until(async () => {
      const got = await h.call('GET', `/v1/rollouts/${json.id}`);
      return got.json.status === 'finished' ? got.json : undefined;
    });
    expect(done.groups).toEqual({ total: 2, completed: 2 });

    const refused = await h.call('GET', `/v1/rollouts/${json.id}/results`);
    expect(refused.status).toBe(400);
    expect(refused.json.error.type).toBe('invalid_request');
    expect(refused.json.error.message).toMatch(/never graded.*--advantage none/);
    expect(refused.json.error.hint).toMatch(/advantage=none/);

    const served = await h.call('GET', `/v1/rollouts/${json.id}/results?advantage=none&builder=per_request`);
    expect(served.status).toBe(200);
    expect(served.headers.get('polar-groups')).toBe('2');
    const rows = served.text.trim().split('\n').map((line) => JSON.parse(line));
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row).toMatchObject({ schema_version: 'polar-trajectory-v2', reward: null, advantage: null, status: 'completed', status_reason: 'agent_finished', stop_reason: 'tool_calls', step_index: 0, is_last_step: true });
      expect(row.trace_id).toBe(`${row.session_id}:0`);
      expect(row.timings).toEqual({ agent_ms: 400, model_ms: 100, tool_ms: 0, init_ms: 50, eval_ms: null });
      expect(row.versions).toEqual([0, 0, 0]);
      expect(row.versions).toHaveLength(row.response_ids.length);
    }
    // verl takes a reward-less row (its reward loop scores it); openrlhf needs a reward and says so.
    const verl = await h.call('GET', `/v1/rollouts/${json.id}/results?advantage=none&format=verl`);
    expect(verl.text.trim().split('\n').map((line) => JSON.parse(line).reward_score)).toEqual([null, null, null, null]);
    const openrlhf = await h.call('GET', `/v1/rollouts/${json.id}/results?advantage=none&format=openrlhf`);
    expect(openrlhf.status).toBe(400);
    expect(openrlhf.json.error.message).toMatch(/openrlhf records need one/);
    // Callbacks of a group never graded carry its rows as advantage=none would.
    await until(() => received.length === 2);
    expect(received.flatMap((body) => body.rows).map((row) => [row.reward, row.advantage])).toEqual(Array(4).fill([null, null]));
  });

  it('cancels a batch: queued sessions dropped, the running one stopped', async () => {
    const h = await start({ hold: true });
    const { json } = await h.call('POST', '/v1/rollouts', submitBody());
    await until(() => h.store.runs.get(`serve-${json.id}`) !== undefined && h.store.runs.sessions(h.store.runs.get(`serve-${json.id}`)!.id).some((s) => s.stage === 'running'));
    const cancelled = await h.call('DELETE', `/v1/rollouts/${json.id}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.status).toBe('cancelled');
    expect(cancelled.json.sessions.by_status).toEqual({ cancelled: 4 });
    expect(h.fake.runs.size).toBe(0);
    expect((await h.call('DELETE', '/v1/rollouts/b_nope')).status).toBe(404);
  });

  it('cancels a batch that passes its deadline_seconds', async () => {
    const h = await start({ hold: true });
    const { json } = await h.call('POST', '/v1/rollouts', { ...submitBody(), deadline_seconds: 1 });
    const ended = await until(async () => {
      const got = await h.call('GET', `/v1/rollouts/${json.id}`);
      return got.json.status === 'cancelled' ? got.json : undefined;
    });
    expect(ended.status_reason).toMatch(/deadline of 1s/);
    expect(ended.sessions.by_status).toEqual({ cancelled: 4 });
  });

  it('pauses and resumes generation with a policy version, visible in /v1/status', async () => {
    const h = await start();
    const paused = await h.call('POST', '/v1/generation/pause', { drain_timeout_ms: 100 });
    expect(paused.json).toEqual({ paused: true, mode: 'hold', drained: true, in_flight: 0, frozen: 0, sleeping: null, policy_version: 0 });
    expect((await h.call('GET', '/v1/status')).json.generation).toMatchObject({ paused: true, policy_version: 0 });
    const resumed = await h.call('POST', '/v1/generation/resume', { policy_version: 3 });
    expect(resumed.json).toEqual({ paused: false, policy_version: 3, weights: null, version_boundaries: 0, version_unobserved: 0, upstream_model: null });
    const status = (await h.call('GET', '/v1/status')).json;
    expect(status.generation).toMatchObject({ paused: false, policy_version: 3 });
    expect(Object.keys(status.queue)).toEqual(['queued', 'init', 'ready', 'running', 'post', 'done']);
    expect(status.replicas).toHaveLength(1);
    expect((await h.call('POST', '/v1/generation/resume', { policy_version: 2 })).status).toBe(400);
    expect((await h.call('POST', '/v1/generation/pause', { drain_timeout_ms: -1 })).status).toBe(400);
    // A batch submitted now defaults to the current version.
    const { policy_version: _explicit, ...unversioned } = submitBody();
    const { json } = await h.call('POST', '/v1/rollouts', unversioned);
    expect((await h.call('GET', `/v1/rollouts/${json.id}`)).json.policy_version).toBe(3);
  });

  it('shows every replica\'s engine metrics in /v1/status next to the busy fraction (null before the engines are polled)', async () => {
    expect((await (await start()).call('GET', '/v1/status')).json.engine).toBeNull();
    const sim = await startSimServer({ policy: noopPolicy(), gpu: { profile: 'qwen3-8b-h100' } });
    cleanups.push(() => sim.close());
    const poller = new EngineMetricsPoller({ replicas: [sim.url, 'http://127.0.0.1:1/v1'].map((url) => ({ url, engine: 'vllm' as const, model: 'polar-sim-qwen3', engineVersion: null })) });
    cleanups.push(() => poller.close());
    await poller.pollNow();
    await fetch(`${sim.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'hi' }] }) }).then((response) => response.text());
    await poller.pollNow();
    const h = await start({ engineStatus: () => poller.snapshot() });
    const status = (await h.call('GET', '/v1/status')).json;
    expect(Object.keys(status)).toEqual(['generation', 'queue', 'batches', 'model', 'engine', 'admission', 'replicas', 'control', 'capture', 'hosts']);
    // No shared scheduler with a test executor: no host to show yet.
    expect(status.hosts).toEqual([]);
    const figures = ['running', 'waiting', 'kv_usage', 'kv_capacity_tokens', 'prompt_tokens_per_second', 'generation_tokens_per_second', 'processed_tokens_per_second', 'preemptions', 'preemptions_per_second', 'effective_utilisation', 'effective_utilisation_recent', 'utilisation_unknown'];
    expect(Object.keys(status.engine)).toEqual(['interval_ms', 'total', 'replicas']);
    expect(Object.keys(status.engine.total)).toEqual([...figures, 'ceiling_tokens_per_second', 'replicas_reporting']);
    expect(Object.keys(status.engine.replicas[0])).toEqual(['url', 'engine', 'metrics', 'reason', 'updated_at', ...figures, 'ceiling']);
    const [ok, down] = status.engine.replicas;
    expect(ok).toMatchObject({ url: sim.url, engine: 'vllm', metrics: 'ok', reason: null, running: 0, waiting: 0, preemptions: 0, kv_capacity_tokens: 386_096, utilisation_unknown: null });
    expect(ok.ceiling).toMatchObject({ source: 'profile', tokens_per_second: sim.engine.metrics().capacity.ceilingTokensPerSecond });
    expect(ok.generation_tokens_per_second).toBeGreaterThan(0);
    expect(ok.effective_utilisation).toBeGreaterThan(0);
    expect(ok.effective_utilisation).toBeLessThan(1);
    expect(down).toMatchObject({ metrics: 'unavailable', running: null, ceiling: null, effective_utilisation: null });
    expect(down.reason).toContain('http://127.0.0.1:1/metrics');
    expect(status.engine.total).toMatchObject({ replicas_reporting: 1, effective_utilisation: null, running: 0 });
    expect(status.engine.total.utilisation_unknown).toContain('127.0.0.1:1');
  });

  it('--max-staleness holds sessions of a batch too many versions behind until the trainer catches up', async () => {
    const h = await start({ maxStaleness: 1 });
    await h.call('POST', '/v1/generation/resume', { policy_version: 5 });
    const { json } = await h.call('POST', '/v1/rollouts', { ...submitBody(), policy_version: 3 });
    await until(async () => ((await h.call('GET', '/v1/status')).json.generation.stale_waiting === 1 ? true : undefined));
    expect(h.fake.runs.size).toBe(0);
    expect((await h.call('GET', `/v1/rollouts/${json.id}`)).json.status).toBe('running');
    const fresh = await h.call('POST', '/v1/rollouts', { ...submitBody(), policy_version: 4 });
    await until(async () => ((await h.call('GET', `/v1/rollouts/${fresh.json.id}`)).json.status === 'finished' ? true : undefined));
    await h.call('DELETE', `/v1/rollouts/${json.id}`);
    expect((await h.call('GET', '/v1/status')).json.generation.stale_waiting).toBe(0);
  });

  it('runs a batch over every replica: the first upstream plus the others as replicas, all listed in /v1/status', async () => {
    const h = await start({ upstreams: ['http://127.0.0.1:9/v1', 'http://127.0.0.1:10/v1', 'sim:oracle'] });
    const before = (await h.call('GET', '/v1/status')).json;
    expect(before.replicas.map((replica: { url: string }) => replica.url)).toEqual(['http://127.0.0.1:9/v1', 'http://127.0.0.1:10/v1', 'sim:oracle']);
    const { json } = await h.call('POST', '/v1/rollouts', submitBody());
    await until(async () => ((await h.call('GET', `/v1/rollouts/${json.id}`)).json.status === 'finished' ? true : undefined));
    expect(h.fake.starts).toMatchObject([{ upstream: 'http://127.0.0.1:9/v1', replicas: ['http://127.0.0.1:10/v1', 'sim:oracle'] }]);
  });

  it("passes allow_logprob_mismatch to the batch's run (off unless asked), and refuses a value that is not a boolean", async () => {
    const h = await start();
    const plain = (await h.call('POST', '/v1/rollouts', submitBody())).json;
    const allowed = (await h.call('POST', '/v1/rollouts', { ...submitBody(), allow_logprob_mismatch: true })).json;
    for (const id of [plain.id, allowed.id]) await until(async () => ((await h.call('GET', `/v1/rollouts/${id}`)).json.status === 'finished' ? true : undefined));
    expect(h.fake.starts.map((s) => [s.runName, s.allowLogprobMismatch])).toEqual([[`serve-${plain.id}`, undefined], [`serve-${allowed.id}`, true]]);
    const bad = await h.call('POST', '/v1/rollouts', { ...submitBody(), allow_logprob_mismatch: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toMatch(/allow_logprob_mismatch/);
  });

  it('sends server-sent events of batches, sessions and groups', async () => {
    const h = await start();
    const controller = new AbortController();
    cleanups.push(() => controller.abort());
    const response = await fetch(`${h.serve.url}/v1/events`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    const read = (async () => {
      for (;;) {
        const part = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (part.done) return;
        text += new TextDecoder().decode(part.value);
      }
    })();
    await until(() => text.includes('event: hello'));
    const { json } = await h.call('POST', '/v1/rollouts', submitBody());
    await until(() => text.includes('"status":"finished"'));
    controller.abort();
    await read;
    expect(text).toContain(`event: batch\ndata: {"type":"batch","batchId":"${json.id}","status":"queued"`);
    expect(text.match(/event: group\n/g)).toHaveLength(2);
    expect(text.match(/"type":"session-end"/g)).toHaveLength(4);
  });

  it('POSTs each completed group to callback_url, retrying with backoff and recording the attempts', async () => {
    const received: any[] = [];
    let failures = 1;
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        if (failures-- > 0) {
          response.writeHead(503).end();
          return;
        }
        received.push(JSON.parse(body));
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const h = await start();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/groups`;
    const { json } = await h.call('POST', '/v1/rollouts', { ...submitBody(), callback_url: url });
    await until(() => received.length === 2);
    expect(received.map((body) => body.batch_id)).toEqual([json.id, json.id]);
    expect(received.every((body) => body.rows.length === 2)).toBe(true);
    const groups = h.store.batches.groups(json.id);
    expect(groups.map((group) => group.callbackStatus)).toEqual(['delivered', 'delivered']);
    expect(groups.map((group) => group.callbackAttempts).sort()).toEqual([1, 2]);
    expect((await h.call('GET', `/v1/rollouts/${json.id}`)).json.callback).toMatchObject({ url, delivered: 2, failed: 0 });
  });

  it('resumes an unfinished batch after a restart on the same db: same id, every session exactly once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const first = await start({ dir });
    let finished = 0;
    first.fake.gate.wait = () => (finished++ < 1 ? Promise.resolve() : new Promise(() => undefined));
    const { json } = await first.call('POST', '/v1/rollouts', submitBody());
    await until(() => first.fake.runs.size === 1);
    await first.serve.close();
    first.store.close();
    expect(first.store.path).toBe(path.join(dir, 'polar.db'));
    const second = await start({ dir });
    const done = await until(async () => {
      const got = await second.call('GET', `/v1/rollouts/${json.id}`);
      return got.json.status === 'finished' ? got.json : undefined;
    });
    expect(done.sessions).toMatchObject({ total: 4, done: 4 });
    expect(second.fake.starts).toMatchObject([{ runName: `serve-${json.id}`, resume: true }]);
    expect(second.fake.starts).toHaveLength(1);
    const all = new Map([...first.fake.runs, ...second.fake.runs].map(([id]) => [id, (first.fake.runs.get(id) ?? 0) + (second.fake.runs.get(id) ?? 0)]));
    expect([...all.values()]).toEqual([1, 1, 1, 1]);
  });

  it('documents every route it serves in /openapi.json, and nothing else', () => {
    const app = createServeApp({ engine: {} as never, store: {} as never, token: 'x' });
    const served = new Set(app.routes.filter((route) => route.method !== 'ALL').map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`));
    const documented = new Set(Object.entries(OPENAPI_DOCUMENT.paths).flatMap(([route, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${route}`)));
    expect(served).toEqual(documented);
    expect(new Set(SERVE_ROUTES.map(([method, route]) => `${method} ${route}`))).toEqual(documented);
  });
});
