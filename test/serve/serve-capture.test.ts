// A batch's capture mode over polar serve's HTTP API: the `capture` field (token_in | chat, default the server's),
// the 409 capture_unavailable with nothing stored, the mode in the batch JSON, the submit answer, /v1/status and
// the OpenAPI document, the mode reaching the batch's run (and kept over a restart), the server's sampling under a
// batch's own fields. Docker-free executor with an injected capture probe; the last tests run the real engine
// against SGLang-shaped simulators (their preflight, once, decides), no session started.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CaptureRoute, UpstreamCapture } from '../../src/rollout/batch-capture.js';
import { OPENAPI_DOCUMENT } from '../../src/serve/openapi-document.js';
import { startServe } from '../../src/serve/start-serve.js';
import { openStore } from '../../src/store/open-store.js';
import { readResponse } from '../helpers/read-response.js';
import { startTestServe, TEST_SERVE_TOKEN, type TestServe, type TestServeOptions } from '../helpers/start-test-serve.js';
import { until } from '../helpers/until.js';
import { fixtureRows } from './fake-batch-executor.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-capture-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const OK: CaptureRoute = { available: true, reason: null, hint: null };
const NO_TOKENIZE: CaptureRoute = { available: false, reason: 'SGLang at http://127.0.0.1:1/v1: the server has no /tokenize route (answered 404)', hint: 'Token-in needs … Or send "capture": "chat".' };
const NO_CHAT_IDS: CaptureRoute = { available: false, reason: 'SGLang at http://127.0.0.1:1/v1 answers chat without token ids', hint: 'upgrade SGLang, or send "capture": "token_in".' };

/** A server whose upstreams offer `routes` (counted: how often the probe ran). */
async function start(options: TestServeOptions & { offers?: { tokenIn: CaptureRoute; chat: CaptureRoute }; dir?: string } = {}): Promise<TestServe & { probes: () => number }> {
  const { offers = { tokenIn: OK, chat: OK }, dir = tempDir(), ...rest } = options;
  let probes = 0;
  const captureProbe = async (): Promise<UpstreamCapture[]> => {
    probes += 1;
    return [{ url: 'http://127.0.0.1:1/v1', engine: 'sglang', ...offers }];
  };
  const serve = await startTestServe(dir, cleanups, { captureProbe, ...rest });
  return Object.assign(serve, { probes: () => probes });
}

const body = (extra: Record<string, unknown> = {}) => ({ harness: 'pi', tasks: fixtureRows(), samples: 1, ...extra });

async function finished(h: TestServe, id: string): Promise<any> {
  return until(async () => {
    const got = await h.call('GET', `/v1/rollouts/${id}`);
    return got.json.status === 'finished' ? got.json : undefined;
  });
}

describe('polar serve: a batch\'s capture mode', () => {
  it('takes "capture" per batch, defaults to the server\'s, answers and records it, and hands it to the batch\'s run', async () => {
    const h = await start({ defaults: { tokenIn: true, toolFormat: 'qwen3_coder' } });
    const asDefault = await h.call('POST', '/v1/rollouts', body());
    const chat = await h.call('POST', '/v1/rollouts', body({ capture: 'chat' }));
    const tokenIn = await h.call('POST', '/v1/rollouts', body({ capture: 'token_in' }));
    expect([asDefault.status, chat.status, tokenIn.status]).toEqual([202, 202, 202]);
    expect([asDefault.json.capture, chat.json.capture, tokenIn.json.capture]).toEqual(['token_in', 'chat', 'token_in']);
    for (const [submitted, mode] of [[asDefault, 'token_in'], [chat, 'chat'], [tokenIn, 'token_in']] as const) {
      expect((await finished(h, submitted.json.id)).capture).toBe(mode);
      // Stored resolved: the batch's own request holds its mode.
      expect(h.store.batches.get(submitted.json.id)!.request['capture']).toBe(mode);
    }
    expect((await h.call('GET', '/v1/rollouts')).json.rollouts.map((batch: { capture: string }) => batch.capture)).toEqual(['token_in', 'chat', 'token_in']);
    // The run of each batch: token-in or not, the server's tool format for its token-in output.
    expect(h.fake.starts.map((s) => [s.runName, s.tokenIn, s.toolFormat])).toEqual([
      [`serve-${asDefault.json.id}`, true, 'qwen3_coder'],
      [`serve-${chat.json.id}`, false, 'qwen3_coder'],
      [`serve-${tokenIn.json.id}`, true, 'qwen3_coder'],
    ]);
  });

  it('defaults to chat without --token-in, and then checks nothing at submit for a chat batch', async () => {
    const h = await start({ offers: { tokenIn: NO_TOKENIZE, chat: OK } });
    const plain = await h.call('POST', '/v1/rollouts', body());
    expect(plain.status).toBe(202);
    expect(plain.json.capture).toBe('chat');
    expect(h.probes()).toBe(0);
    await finished(h, plain.json.id);
    expect(h.fake.starts[0]!.tokenIn).toBe(false);
  });

  it.each([
    ['a misspelt mode', { capture: 'token-in' }],
    ['a mode that is not a string', { capture: true }],
    ['an empty mode', { capture: '' }],
  ])('answers 400 invalid_request for %s, nothing stored', async (_what, extra) => {
    const h = await start();
    const response = await h.call('POST', '/v1/rollouts', body(extra));
    expect(response.status).toBe(400);
    expect(response.json.error.type).toBe('invalid_request');
    expect(response.json.error.message).toMatch(/^capture: /);
    expect(h.store.batches.list()).toEqual([]);
  });

  it('refuses token_in on an engine without the token-in route: 409 capture_unavailable with the fix, nothing stored', async () => {
    const h = await start({ offers: { tokenIn: NO_TOKENIZE, chat: OK } });
    const refused = await h.call('POST', '/v1/rollouts', body({ capture: 'token_in' }), { 'idempotency-key': 'step-1' });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual({ error: { type: 'capture_unavailable', message: `"capture": "token_in" is not available: ${NO_TOKENIZE.reason}`, hint: NO_TOKENIZE.hint } });
    expect(h.store.batches.list()).toEqual([]);
    expect(h.store.runs.list()).toEqual([]);
    // The key was not taken: the same key with chat capture makes a batch.
    const chat = await h.call('POST', '/v1/rollouts', body({ capture: 'chat' }), { 'idempotency-key': 'step-1' });
    expect(chat.status).toBe(202);
    expect(h.store.batches.list()).toHaveLength(1);
  });

  it('refuses chat on a --token-in server whose engine answers chat without ids, and takes token_in there', async () => {
    const h = await start({ defaults: { tokenIn: true }, offers: { tokenIn: OK, chat: NO_CHAT_IDS } });
    const refused = await h.call('POST', '/v1/rollouts', body({ capture: 'chat' }));
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ type: 'capture_unavailable', hint: NO_CHAT_IDS.hint });
    expect(refused.json.error.message).toContain('answers chat without token ids');
    expect(h.store.batches.list()).toEqual([]);
    expect((await h.call('POST', '/v1/rollouts', body())).status).toBe(202);
  });

  it('stores a batch whose upstream cannot be preflighted at submit (it then fails at its start, as every batch would)', async () => {
    const h = await start({ captureProbe: () => Promise.reject(new Error('preflight (reachable): cannot reach the upstream')) });
    const submitted = await h.call('POST', '/v1/rollouts', body({ capture: 'token_in' }));
    expect(submitted.status).toBe(202);
    expect(h.store.batches.list()).toHaveLength(1);
  });

  it('keeps a batch\'s mode over a restart with another default, and its idempotency key with it', async () => {
    const dir = tempDir();
    const first = await start({ dir, defaults: { tokenIn: true }, hold: true });
    const submitted = await first.call('POST', '/v1/rollouts', body(), { 'idempotency-key': 'step-9' });
    expect(submitted.json.capture).toBe('token_in');
    await until(() => first.fake.starts.length === 1);
    await first.close();
    const second = await start({ dir });
    await finished(second, submitted.json.id);
    expect(second.fake.starts).toMatchObject([{ runName: `serve-${submitted.json.id}`, resume: true, tokenIn: true }]);
    expect((await second.call('GET', `/v1/rollouts/${submitted.json.id}`)).json.capture).toBe('token_in');
    // The same body under the same key is the same batch, whatever the new default would make of it.
    const again = await second.call('POST', '/v1/rollouts', body(), { 'idempotency-key': 'step-9' });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ id: submitted.json.id, capture: 'token_in', created: false });
  });

  it('shows the default mode, the tool format and each upstream\'s offer in /v1/status (not probed until a batch needs it)', async () => {
    const h = await start({ defaults: { toolFormat: 'qwen3_coder' }, offers: { tokenIn: NO_TOKENIZE, chat: OK }, upstreams: ['sim:oracle?engine=sglang'] });
    const before = (await h.call('GET', '/v1/status')).json.capture;
    expect(before).toEqual({
      default: 'chat',
      tool_format: 'qwen3_coder',
      upstreams: [
        {
          url: 'sim:oracle?engine=sglang',
          engine: null,
          token_in: { available: null, reason: expect.stringContaining('not preflighted yet'), hint: null },
          chat: { available: null, reason: expect.stringContaining('not preflighted yet'), hint: null },
        },
      ],
    });
    expect((await h.call('POST', '/v1/rollouts', body({ capture: 'token_in' }))).status).toBe(409);
    const after = (await h.call('GET', '/v1/status')).json.capture;
    expect(after.upstreams).toEqual([{ url: 'http://127.0.0.1:1/v1', engine: 'sglang', token_in: { available: false, reason: NO_TOKENIZE.reason, hint: NO_TOKENIZE.hint }, chat: { available: true, reason: null, hint: null } }]);
  });

  it('runs a batch with the server\'s sampling, each field the batch sets winning', async () => {
    const h = await start({ defaults: { sampling: { mode: 'run', temperature: 0.6, topP: 0.95, topK: -1, minP: 0 } } });
    const own = await h.call('POST', '/v1/rollouts', body());
    const mixed = await h.call('POST', '/v1/rollouts', body({ sampling: { temperature: 1, max_tokens: 512 } }));
    for (const id of [own.json.id, mixed.json.id]) await finished(h, id);
    expect(h.fake.starts.map((s) => s.sampling)).toEqual([
      { mode: 'run', temperature: 0.6, topP: 0.95, topK: -1, minP: 0 },
      { mode: 'run', temperature: 1, topP: 0.95, topK: -1, minP: 0, maxTokens: 512 },
    ]);
  });

  it('documents capture in the request, the batch, the submit answer, the 409 and /v1/status', () => {
    const schemas = OPENAPI_DOCUMENT.components.schemas;
    expect(schemas.BatchRequest.properties.capture.enum).toEqual(['token_in', 'chat']);
    expect(schemas.Batch.properties.capture.enum).toEqual(['token_in', 'chat']);
    const submit = OPENAPI_DOCUMENT.paths['/v1/rollouts'].post.responses as any;
    expect(submit[202].content['application/json'].schema.properties.capture.enum).toEqual(['token_in', 'chat']);
    expect(submit[409].content['application/json'].example.error.type).toBe('capture_unavailable');
    expect(OPENAPI_DOCUMENT.components.responses.Error.description).toContain('capture_unavailable');
    expect(OPENAPI_DOCUMENT.paths['/v1/status'].get.description).toMatch(/capture: \{default: token_in \| chat/);
    expect(OPENAPI_DOCUMENT.paths['/v1/rollouts/{id}/results'].get.description).toMatch(/capture: token_in .* chat, or mixed/);
  });
});

describe('polar serve: capture against the simulator\'s preflight (real engine, no session run)', () => {
  /** The real engine (no fake executor) over `upstream`; batches never reach Docker here. */
  async function real(upstream: string, defaults: Record<string, unknown>) {
    const dir = tempDir();
    const store = openStore(path.join(dir, 'polar.db'));
    const serve = await startServe({ store, runtime: {} as never, cacheDir: dir, upstreams: [upstream], workDir: path.join(dir, 'work'), requireInstalled: false, token: TEST_SERVE_TOKEN, port: 0, defaults });
    cleanups.push(async () => {
      await serve.close();
      store.close();
    });
    const call = async (method: string, route: string, payload?: unknown) =>
      readResponse(await fetch(`${serve.url}${route}`, { method, headers: { authorization: `Bearer ${TEST_SERVE_TOKEN}`, 'content-type': 'application/json' }, ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}) }));
    return { store, call };
  }

  it('an SGLang without /tokenize: served with --eos-token-ids (chat available), token_in refused with 409 naming /tokenize', async () => {
    const { store, call } = await real('sim:oracle?engine=sglang&tokenize=false', { eosTokenIds: [151645, 151643] });
    const refused = await call('POST', '/v1/rollouts', body({ capture: 'token_in' }));
    expect(refused.status).toBe(409);
    expect(refused.json.error.type).toBe('capture_unavailable');
    expect(refused.json.error.message).toMatch(/"capture": "token_in" is not available: SGLang at http:\/\/127\.0\.0\.1:\d+\/v1: the server has no \/tokenize route \(answered 404\)/);
    expect(refused.json.error.hint).toMatch(/\/tokenize rendering chat messages .* Or send "capture": "chat"\./);
    expect(store.batches.list()).toEqual([]);
    const status = (await call('GET', '/v1/status')).json.capture;
    expect(status.upstreams).toMatchObject([{ engine: 'sglang', token_in: { available: false }, chat: { available: true } }]);
    expect(status.tool_format).toBe('hermes');
  }, 60_000);

  it('the same SGLang without --eos-token-ids cannot be served: the batch fails at its start with the preflight\'s fix', async () => {
    const { call } = await real('sim:oracle?engine=sglang&tokenize=false', {});
    const submitted = await call('POST', '/v1/rollouts', body({ capture: 'token_in' }));
    expect(submitted.status).toBe(202);
    const failed = await until(async () => {
      const got = await call('GET', `/v1/rollouts/${submitted.json.id}`);
      return got.json.status === 'failed' ? got.json : undefined;
    }, { timeoutMs: 60_000, everyMs: 100 });
    expect(failed.status_reason).toMatch(/eos-token-ids/);
  }, 90_000);

  it('an SGLang without chat ids behind --token-in: token_in taken, chat refused with the upgrade', async () => {
    const { store, call } = await real('sim:oracle?engine=sglang&token-ids=false', { tokenIn: true });
    const refused = await call('POST', '/v1/rollouts', body({ capture: 'chat' }));
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ type: 'capture_unavailable' });
    expect(refused.json.error.message).toContain('answers chat without token ids');
    expect(refused.json.error.hint).toMatch(/PR #30917.*or send "capture": "token_in"/);
    expect(store.batches.list()).toEqual([]);
    expect((await call('GET', '/v1/status')).json.capture).toMatchObject({ default: 'token_in', upstreams: [{ engine: 'sglang', token_in: { available: true }, chat: { available: false } }] });
  }, 60_000);
});
