// The gateway over two real simulator replicas, driven by the official OpenAI SDK: sessions stick to
// one replica, both replicas are used, a replica closed mid-session fails that call typed
// (upstream_unavailable, 503) and later calls go to the other; a replica whose health check fails
// while a call is in flight cuts that call typed too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/create-gateway.js';
import { createStoreRecorder } from '../../src/store/create-store-recorder.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { startSimServer } from '../../src/sim/sim-server.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const policy = () => ({ content: 'Hello from a replica.' });

interface Stack {
  store: Store;
  gateway: Gateway;
  url: string;
  close(): Promise<void>;
}

async function startStack(urls: string[], intervalMs: number): Promise<Stack> {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-replicas-'));
  const store = openStore(path.join(dir, 'polar.db'));
  const gateway = createGateway({
    upstreamUrls: urls,
    recorder: createStoreRecorder(store, { simulated: true }),
    upstreamModel: 'polar-sim-qwen3',
    replicaHealth: { intervalMs, timeoutMs: 500, failuresToDown: 1 },
  });
  const url = await gateway.listen(0);
  return {
    store,
    gateway,
    url,
    async close() {
      await gateway.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const ask = (stack: Stack, key: string, text: string) =>
  new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions.create({ model: 'any', messages: [{ role: 'user', content: text }] });

describe('gateway with two upstream replicas', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('keeps every call of a session on one replica, uses both, and fails over when one is closed mid-session', async () => {
    const a = await startSimServer({ policy, latency: { firstTokenMs: 100 } });
    const b = await startSimServer({ policy, latency: { firstTokenMs: 100 } });
    cleanups.push(() => a.close(), () => b.close());
    const stack = await startStack([a.url, b.url], 0);
    cleanups.push(() => stack.close());

    const sessions = Array.from({ length: 8 }, () => stack.store.sessions.create({}));
    await Promise.all(
      sessions.map(async (session) => {
        for (let turn = 0; turn < 3; turn += 1) {
          const answer = await ask(stack, session.key, `session ${session.id} turn ${turn}`);
          expect(answer.choices[0]?.message.content?.trim()).toBe('Hello from a replica.');
        }
      }),
    );
    const replicaOf = new Map<number, string>();
    for (const session of sessions) {
      const calls = stack.store.calls.listBySession(session.id);
      expect(calls).toHaveLength(3);
      const used = new Set(calls.map((call) => call.upstreamReplica));
      expect(used.size).toBe(1);
      replicaOf.set(session.id, [...used][0] as string);
    }
    const perReplica = [a.url, b.url].map((url) => [...replicaOf.values()].filter((used) => used === url).length);
    // least loaded: the concurrent first calls alternate (exactly 4/4 unless a call ended before all began)
    expect(perReplica[0]).toBeGreaterThanOrEqual(3);
    expect(perReplica[1]).toBeGreaterThanOrEqual(3);
    expect(stack.gateway.replicas().map((status) => [status.healthy, status.calls, status.sessions, status.inFlight])).toEqual([
      [true, 3 * (perReplica[0] as number), perReplica[0], 0],
      [true, 3 * (perReplica[1] as number), perReplica[1], 0],
    ]);

    // b goes away mid-session: the next call of a session pinned to b fails typed...
    const onB = sessions.find((session) => replicaOf.get(session.id) === b.url)!;
    await b.close();
    const failure = await ask(stack, onB.key, 'after b died').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    const failed = stack.store.calls.listBySession(onB.id).at(-1);
    expect(failed).toMatchObject({ status: 'upstream_unavailable', httpStatus: 503, upstreamReplica: b.url });
    expect(stack.gateway.replicas()[1]).toMatchObject({ healthy: false });
    expect(stack.gateway.replicas()[1]?.lastError).toMatch(/ECONNREFUSED/);

    // ...its next call and every new session go to a.
    await ask(stack, onB.key, 'retry');
    expect(stack.store.calls.listBySession(onB.id).at(-1)).toMatchObject({ status: 'ok', upstreamReplica: a.url });
    for (let index = 0; index < 3; index += 1) {
      const fresh = stack.store.sessions.create({});
      await ask(stack, fresh.key, 'new session');
      expect(stack.store.calls.listBySession(fresh.id)[0]?.upstreamReplica).toBe(a.url);
    }
  });

  it('cuts a call in flight on a replica whose health check fails, typed upstream_unavailable', async () => {
    const a = await startSimServer({ policy });
    cleanups.push(() => a.close());
    // A replica that accepts the call and never answers, and whose /health we can turn off.
    let healthy = true;
    const hung = http.createServer((req, res) => {
      if (req.url === '/health') {
        res.writeHead(healthy ? 200 : 503).end();
        return;
      }
      req.resume();
    });
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => { hung.close(() => resolve()); hung.closeAllConnections(); }));
    const hungUrl = `http://127.0.0.1:${(hung.address() as AddressInfo).port}/v1`;
    const stack = await startStack([hungUrl, a.url], 50);
    cleanups.push(() => stack.close());

    const session = stack.store.sessions.create({});
    const pending = ask(stack, session.key, 'hello').catch((error: unknown) => error);
    const deadline = Date.now() + 5_000;
    while (stack.gateway.replicas()[0]?.inFlight !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stack.gateway.replicas()[0]?.inFlight).toBe(1);
    healthy = false;
    const failure = await pending;
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    const call = stack.store.calls.listBySession(session.id)[0];
    expect(call).toMatchObject({ status: 'upstream_unavailable', upstreamReplica: hungUrl });
    expect(call?.error).toMatch(/was marked down: health check failed/);
    // the session's next call goes to the healthy replica
    await ask(stack, session.key, 'again');
    expect(stack.store.calls.listBySession(session.id)[1]).toMatchObject({ status: 'ok', upstreamReplica: a.url });
    // and the replica comes back once its health check passes
    healthy = true;
    while (stack.gateway.replicas()[0]?.healthy !== true && Date.now() < deadline + 5_000) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stack.gateway.replicas()[0]).toMatchObject({ healthy: true, downSince: null });
  });

  it('a replica killed while it streams an answer: the call ends upstream_unavailable (infrastructure), the next goes to the other', async () => {
    const long = () => ({ content: 'word '.repeat(200) });
    const a = await startSimServer({ policy: long });
    const b = await startSimServer({ policy: long, latency: { perTokenMs: 20 } });
    cleanups.push(() => a.close(), () => b.close());
    const stack = await startStack([b.url, a.url], 0);
    cleanups.push(() => stack.close());
    const session = stack.store.sessions.create({});
    const client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: session.key, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'any', stream: true, messages: [{ role: 'user', content: 'talk' }] });
    let chunks = 0;
    const failure = await (async () => {
      for await (const _chunk of stream) {
        chunks += 1;
        if (chunks === 3) void b.close();
      }
    })().then(() => undefined, (error: unknown) => error);
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(failure).toBeInstanceOf(Error);
    const [call] = stack.store.calls.listBySession(session.id);
    expect(call).toMatchObject({ status: 'upstream_unavailable', upstreamReplica: b.url });
    // the cut call had b health-checked at once (no interval here): it is down
    const deadline = Date.now() + 5_000;
    while (stack.gateway.replicas()[0]?.healthy !== false && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stack.gateway.replicas()[0]?.healthy).toBe(false);
    await ask(stack, session.key, 'again');
    expect(stack.store.calls.listBySession(session.id)[1]).toMatchObject({ status: 'ok', upstreamReplica: a.url });
  });
});
