// Every route of the viewer's app over a seeded read-only store: pages, JSON API, assets, 404s, 400s, read-only.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/open-store.js';
import { openViewStore, type ViewStore } from '../../src/store/open-view-store.js';
import { createViewApp } from '../../src/view/create-view-app.js';
import { useTempDirs } from '../store/temp-dir.js';
import { countMaskedTokens, exportRowsOf } from './export-rows-of.js';
import { seedViewRun, type SeededViewRun } from './seed-view-store.js';

const tempDir = useTempDirs();

interface RowWindowBody {
  length: number;
  promptLength: number;
  trained: number;
  masked: number;
  offset: number;
  count: number;
  idsType: 'uint32' | 'float64';
  ids: string;
  kinds: string;
  logprobs: string;
  textSource: string;
  texts: Record<string, string>;
}

function unpack<T>(text: string, make: (buffer: ArrayBuffer) => ArrayLike<T>): T[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from(make(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)));
}

/** Reads a whole row window by window and decodes it back into the export's shape. */
async function readRowInWindows(request: (url: string) => Response | Promise<Response>, url: string, limit: number) {
  const ids: number[] = [];
  const mask: number[] = [];
  const logprobs: (number | null)[] = [];
  const texts: Record<string, string> = {};
  let first: RowWindowBody | undefined;
  for (let offset = 0; first === undefined || offset < first.length; ) {
    const body = (await (await request(`${url}&offset=${offset}&limit=${limit}`)).json()) as RowWindowBody;
    first ??= body;
    expect(body.offset).toBe(offset);
    const kinds = unpack(body.kinds, (buffer) => new Uint8Array(buffer));
    const values = unpack(body.logprobs, (buffer) => new Float64Array(buffer));
    ids.push(...unpack(body.ids, (buffer) => (body.idsType === 'uint32' ? new Uint32Array(buffer) : new Float64Array(buffer))));
    kinds.forEach((kind, k) => {
      if (kind === 0) return;
      mask.push(kind === 2 ? 1 : 0);
      logprobs.push(Number.isNaN(values[k]) ? null : values[k]!);
    });
    Object.assign(texts, body.texts);
    offset += body.count;
  }
  return { ...first!, ids, mask, logprobs, texts };
}

describe('polar view app', () => {
  let dbPath: string;
  let writer: Store;
  let view: ViewStore;
  let app: ReturnType<typeof createViewApp>;
  let seeded: SeededViewRun;

  beforeEach(() => {
    dbPath = path.join(tempDir(), 'polar.db');
    writer = openStore(dbPath);
    seeded = seedViewRun(writer);
    view = openViewStore(dbPath);
    app = createViewApp(view, { now: () => Date.now() });
  });

  afterEach(() => {
    view.close();
    writer.close();
  });

  const get = async (url: string) => {
    const response = await app.request(url);
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };
  const json = async <T = Record<string, unknown>>(url: string): Promise<T> => {
    const response = await get(url);
    expect(response.status, `${url}: ${response.text}`).toBe(200);
    expect(response.type).toContain('application/json');
    return JSON.parse(response.text) as T;
  };

  it('lists runs with sessions by status, resolved rate and model busy fraction', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.type).toContain('text/html');
    expect(page.text).toContain('href="/runs/view-run"');
    expect(page.text).toContain('completed 2');
    expect(page.text).toContain('infra_error 1');
    expect(page.text).toContain('50.0%');
    expect(page.text).toContain('42.0%');
    const runs = await json<{ name: string; sessions: number; resolved: number; rewarded: number }[]>('/api/runs');
    expect(runs).toMatchObject([{ name: 'view-run', sessions: 4, resolved: 1, rewarded: 2 }]);
  });

  it('shows a run by name or id: groups with advantages, failures, a page of sessions', async () => {
    for (const ref of ['view-run', String(seeded.runId)]) {
      const page = await get(`/runs/${ref}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('GRPO groups');
      expect(page.text).toContain('demo__2');
      expect(page.text).toContain(`href="/sessions/${seeded.main.sessionId}"`);
    }
    const detail = await json<{ groups: { instanceId: string; samples: { reward: number | null; advantage: number | null }[] }[]; failures: { status: string; count: number }[] }>('/api/runs/view-run');
    const demo1 = detail.groups.find((group) => group.instanceId === 'demo__1')!;
    expect(demo1.samples.map((sample) => sample.reward)).toEqual([1, 0]);
    expect(demo1.samples[0]!.advantage).toBeCloseTo(1, 3);
    expect(demo1.samples[1]!.advantage).toBeCloseTo(-1, 3);
    expect(detail.groups.find((group) => group.instanceId === 'demo__2')!.samples.every((sample) => sample.advantage === null)).toBe(true);
    expect(detail.failures).toEqual([{ status: 'infra_error', reason: null, count: 1, sessionIds: [seeded.sessions[2]!.sessionId] }]);
  });

  it('shows a run\'s Docker hosts: address and engine from the manifest, state, losses and last error at its end, sessions there by status', async () => {
    expect((await get('/runs/view-run')).text).not.toContain('data-testid="hosts-table"');
    const [a, b, c] = seeded.sessions;
    writer.runs.setSessionHost(a!.sessionId, 'gpu-a');
    writer.runs.setSessionHost(b!.sessionId, 'gpu-b');
    writer.runs.setSessionHost(c!.sessionId, 'gpu-b');
    writer.runs.setManifest(seeded.runId, { hosts: [{ name: 'gpu-a', ssh: 'ssh://polar@10.0.0.2:22', engineVersion: '20.10.24', architecture: 'x86_64', slots: 4 }, { name: 'gpu-b', ssh: 'ssh://polar@10.0.0.3:22', engineVersion: '20.10.24', architecture: 'x86_64', slots: 'measured' }] });
    writer.runs.finish(seeded.runId, 'finished', { wallMs: 5000, hosts: [{ name: 'gpu-a', state: 'up', losses: 0, lastError: null, images: 1 }, { name: 'gpu-b', state: 'down', losses: 2, lastError: 'SSH connection lost: Keepalive timeout', images: 1 }] });
    const page = (await get('/runs/view-run')).text;
    expect(page).toContain('data-testid="hosts-table"');
    const row = (name: string) => page.slice(page.indexOf(`data-host="${name}"`), page.indexOf('</tr>', page.indexOf(`data-host="${name}"`)));
    expect(row('gpu-a')).toContain('ssh://polar@10.0.0.2:22');
    expect(row('gpu-a')).toContain('20.10.24 x86_64');
    expect(row('gpu-a')).toContain('completed 1');
    expect(row('gpu-b')).toContain('measured');
    expect(row('gpu-b')).toContain('>down<');
    expect(row('gpu-b')).toContain('SSH connection lost: Keepalive timeout');
    expect(row('gpu-b')).toContain('completed 1');
    expect(row('gpu-b')).toContain('infra_error 1');
  });

  it('sorts, filters and paginates sessions on the server', async () => {
    const completed = await json<{ total: number; rows: { status: string }[] }>('/api/runs/view-run/sessions?status=completed');
    expect(completed.total).toBe(2);
    expect(completed.rows.every((row) => row.status === 'completed')).toBe(true);
    expect((await json<{ total: number }>('/api/runs/view-run/sessions?status=running')).total).toBe(1);
    expect((await json<{ total: number }>('/api/runs/view-run/sessions?q=demo__2')).total).toBe(2);
    const byReward = await json<{ rows: { reward: number | null }[] }>('/api/runs/view-run/sessions?sort=-reward');
    expect(byReward.rows.map((row) => row.reward)).toEqual([1, 0, null, null]);
    const paged = await json<{ total: number; rows: { id: number }[] }>('/api/runs/view-run/sessions?size=3&page=2');
    expect(paged.total).toBe(4);
    expect(paged.rows).toHaveLength(1);
    const page = await get('/runs/view-run?size=2');
    expect(page.text).toContain('rel="next"');
    expect(page.text).toContain('page 1 of 2');
  });

  it('shows a session: calls, conversation from the client request, coloured patch, verdict, agent log', async () => {
    const id = seeded.main.sessionId;
    const page = await get(`/sessions/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Fix the bug.');
    expect(page.text).toContain('upstream_error');
    expect(page.text).toContain('<span class="d-add">+new</span>');
    expect(page.text).toContain('<span class="d-del">-old</span>');
    expect(page.text).toContain('tests/test_a.py::test_fix');
    expect(page.text).toContain('FAIL_TO_PASS');
    for (const callId of seeded.main.callIds) expect(page.text).toContain(`id="call-${callId}"`);
    const chosen = await get(`/sessions/${id}?call=${seeded.main.callIds[0]}`);
    expect(chosen.text).toContain(`From the client request of call <a href="#call-${seeded.main.callIds[0]}">`);
    const api = await json<{ session: { id: number; reward: number }; calls: unknown[] }>(`/api/sessions/${id}`);
    expect(api.session).toMatchObject({ id, reward: 1 });
    expect(api.calls).toHaveLength(4);
    const conversation = await json<{ messages: { role: string }[] }>(`/api/calls/${seeded.main.callIds[1]}/conversation`);
    expect(conversation.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant']);
  });

  it.each(['prefix_merging', 'per_request'] as const)('shows exactly the %s export rows with typed split reasons', async (builder) => {
    const id = seeded.main.sessionId;
    const exported = await exportRowsOf(writer, seeded.runName, builder);
    const expected = countMaskedTokens(exported, id);
    const page = await get(`/sessions/${id}/trajectory?builder=${builder}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`data-testid="trained-count">${expected.trained}<`);
    expect(page.text).toContain(`data-testid="masked-count">${expected.masked}<`);
    expect(page.text).toContain('not-trainable');
    expect(page.text).toContain('simulated run: token text from the built-in Qwen3 tokenizer');
    const summary = await json<{ rows: unknown[]; diagnostics: { splits: { reason: { kind: string } }[] }; drift: unknown[] }>(`/api/sessions/${id}/trajectory?builder=${builder}`);
    expect(summary.rows).toHaveLength(expected.rows);
    if (builder === 'prefix_merging') {
      expect(summary.diagnostics.splits.map((split) => split.reason.kind)).toEqual(['first-call', 'not-trainable', 'prefix-mismatch']);
      expect(summary.drift).toHaveLength(1);
      expect(page.text).toContain('data-testid="drift"');
    }
    for (const record of exported.filter((row) => row.session_id === id)) {
      // Fetched in windows of 7 tokens, as the page fetches its (larger) windows.
      const row = await readRowInWindows((url) => app.request(url), `/api/sessions/${id}/trajectory/rows/${record.row_index}?builder=${builder}`, 7);
      expect(row.ids).toEqual([...record.prompt_ids, ...record.response_ids]);
      expect(row.promptLength).toBe(record.prompt_ids.length);
      expect(row.mask).toEqual(record.loss_mask);
      expect(row.logprobs).toEqual(record.logprobs);
      expect(row.trained).toBe(record.loss_mask.filter((value) => value === 1).length);
      expect(row.masked).toBe(record.loss_mask.filter((value) => value === 0).length);
      expect(row.textSource).toBe('qwen-builtin');
      expect(row.texts['151644']).toBe('<|im_start|>');
    }
    const first = await json<{ splits: { callId: number; reason: { kind: string } }[] }>(`/api/sessions/${id}/trajectory/rows/0?builder=${builder}`);
    // per_request records no split for trainable calls (each is its own row); prefix_merging says why row 0 started.
    expect(first.splits).toEqual(builder === 'prefix_merging' ? [{ callId: seeded.main.callIds[0], seq: 0, reason: { kind: 'first-call' } }] : []);
  });

  it('serves its assets and nothing else from /assets', async () => {
    for (const name of ['view.css', 'view.js', 'trajectory.js']) expect((await get(`/assets/${name}`)).status).toBe(200);
    expect((await get('/assets/view.js')).type).toContain('text/javascript');
    expect((await get('/assets/..%2Fcreate-view-app.ts')).status).toBe(404);
  });

  it.each([
    '/runs/nope',
    '/api/runs/nope',
    '/api/runs/nope/sessions',
    '/api/runs/nope/version',
    '/sessions/99999',
    '/sessions/99999/trajectory',
    '/api/sessions/99999',
    '/api/sessions/99999/trajectory',
    '/api/sessions/1/trajectory/rows/99',
    '/api/calls/99999/conversation',
    '/sessions/1?call=99999',
    '/assets/nope.js',
    '/no/such/page',
  ])('answers 404 for %s', async (url) => {
    const response = await get(url);
    expect(response.status).toBe(404);
    if (url.startsWith('/api/')) expect(JSON.parse(response.text)).toHaveProperty('error');
  });

  it.each([
    '/runs/view-run?page=0',
    '/runs/view-run?page=abc',
    '/runs/view-run?sort=password',
    '/runs/view-run?status=happy',
    '/runs/view-run?size=100000',
    '/runs/view-run?gpage=-1',
    '/api/runs/view-run/sessions?page=1.5',
    '/sessions/abc',
    '/sessions/1?call=x',
    '/sessions/1/trajectory?builder=magic',
    '/api/sessions/1/trajectory?builder=magic',
    '/api/sessions/1/trajectory/rows/abc',
    '/api/sessions/1/trajectory/rows/0?offset=-1',
    '/api/sessions/1/trajectory/rows/0?offset=100000',
    '/api/sessions/1/trajectory/rows/0?limit=0',
    '/api/sessions/1/trajectory/rows/0?limit=x',
    '/api/calls/-1/conversation',
  ])('answers 400 for %s', async (url) => {
    const response = await get(url);
    expect(response.status, response.text).toBe(400);
  });

  it('is read-only: writes through the viewer store handle fail, and a writer keeps writing while it reads', async () => {
    expect(() => view.store.sessions.create({ label: 'x' })).toThrow(/readonly/i);
    expect(() => view.store.runs.finish(seeded.runId, 'interrupted')).toThrow(/readonly/i);
    const before = await json<{ version: string }>('/api/runs/view-run/version');
    const pending = seeded.sessions[3]!.sessionId;
    writer.runs.finishSession(pending, { status: 'timeout', detail: 'deadline of 15 s' });
    const after = await json<{ version: string; done: number }>('/api/runs/view-run/version');
    expect(after.version).not.toBe(before.version);
    expect(after.done).toBe(4);
    expect((await get('/runs/view-run')).text).toContain('deadline of 15 s');
  });

  it('escapes what it renders', async () => {
    const run = writer.runs.create({ name: '<script>alert(1)</script>', harness: 'pi', datasetPath: '/d', upstream: 'sim:oracle', samples: 1, config: {}, ownerPid: 1, ownerHost: 'h' });
    const page = await get('/');
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect((await get(`/runs/${run.id}`)).status).toBe(200);
  });

  it('shows columns newer migrations add (run manifest, status_reason, per-call sampling) and works without them', async () => {
    const before = await get('/');
    expect(before.text).toContain('no manifest');
    view.close();
    const { default: Database } = await import('better-sqlite3');
    const raw = new Database(dbPath);
    // Later migrations add some of these columns; the viewer must show whatever exists.
    for (const [table, column] of [['runs', 'manifest'], ['sessions', 'status_reason'], ['calls', 'sampling']] as const) {
      const columns = raw.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[];
      if (!columns.some((entry) => entry.name === column)) raw.exec(`ALTER TABLE ${table} ADD COLUMN ${column} TEXT`);
    }
    raw.prepare('UPDATE runs SET manifest = ?').run(JSON.stringify({ model: 'Qwen/Qwen3-8B', vllm: { version: '0.11.0' } }));
    raw.prepare("UPDATE sessions SET status_reason = 'container-oom' WHERE status = 'infra_error'").run();
    raw.prepare('UPDATE calls SET sampling = ?').run(JSON.stringify({ temperature: 0.7, top_p: 0.95 }));
    raw.close();
    view = openViewStore(dbPath);
    app = createViewApp(view);
    expect((await get('/')).text).toContain('model=Qwen/Qwen3-8B vllm.version=0.11.0');
    expect((await get('/runs/view-run')).text).toContain('container-oom');
    const session = await get(`/sessions/${seeded.main.sessionId}`);
    expect(session.text).toContain('<button>sampling</button>');
    expect(session.text).toContain('{&quot;temperature&quot;:0.7,&quot;top_p&quot;:0.95}');
    expect((await get(`/sessions/${seeded.sessions[2]!.sessionId}`)).text).toContain('container-oom');
  });

  it('takes token text from the upstream /detokenize for runs that are not simulated, else shows ids', async () => {
    const real = seedViewRun(writer, 'real-run');
    writer.close();
    // Mark the sessions of the second run as served by a real upstream.
    const { default: Database } = await import('better-sqlite3');
    const raw = new Database(dbPath);
    raw.prepare('UPDATE sessions SET simulated = 0 WHERE run_id = ?').run(real.runId);
    raw.close();
    writer = openStore(dbPath);
    const url = `/api/sessions/${real.main.sessionId}/trajectory/rows/0`;
    const plain = await json<{ textSource: string; texts: Record<string, string> }>(url);
    expect(plain.textSource).toBe('ids');
    expect(plain.texts).toEqual({});
    expect((await get(`/sessions/${real.main.sessionId}/trajectory`)).text).toContain('token ids shown');

    const detokenizer = new Hono().post('/detokenize', async (c) => {
      const body = await c.req.json<{ tokens: number[] }>();
      return c.json({ prompt: `[${body.tokens.join(',')}]` });
    });
    const server = serve({ fetch: detokenizer.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const withUpstream = createViewApp(view, { upstream });
      const row = (await (await withUpstream.request(url)).json()) as { textSource: string; texts: Record<string, string> };
      expect(row.textSource).toBe('upstream-detokenize');
      expect(row.texts['151644']).toBe('[151644]');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
