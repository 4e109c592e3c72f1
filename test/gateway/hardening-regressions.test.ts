// One regression test per finding of issue 15 (items 1, 2, 5, 6), each with its reproduction,
// against the real gateway on a real socket with the simulator (or a misbehaving real upstream).
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMessagesAdapter } from '../../src/providers/anthropic-messages/anthropic-messages-adapter.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { startGatewayStack, type GatewayStack } from '../helpers/gateway-stack.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, any>;
}

function post(base: string, path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(base);
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, method: 'POST', path, agent: false, headers: { 'content-type': 'application/json', 'content-length': payload.length, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, any> = {};
          try {
            json = JSON.parse(text) as Record<string, any>;
          } catch {
            // SSE or empty
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const deep = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const chat = (extra = ''): string => `{"model":"m","messages":[{"role":"user","content":"hi"}]${extra}}`;

describe('hardening regressions (issue 15)', () => {
  let stack: GatewayStack;
  const bearer = (): Record<string, string> => ({ authorization: `Bearer ${stack.key}` });

  beforeAll(async () => {
    stack = await startGatewayStack({ gateway: { bodyIdleTimeoutMs: 300, headersTimeoutMs: 400, maxConcurrentPerSession: 2 } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const lastCall = () => stack.store.calls.listBySession(stack.sessionId).at(-1);

  it('10,000-deep JSON anywhere in a Google body is a 400 in the Google shape, not a 500', async () => {
    const body = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"x":${deep(10_000)}}`;
    const answer = await post(stack.url, '/v1beta/models/m:generateContent', body, { 'x-goog-api-key': stack.key });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(answer.json.error.message).toMatch(/nested deeper than 128/);
  });

  it('10,000-deep Anthropic tool arguments and tool parameters on every protocol are 400s', async () => {
    const toolUse = `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"a":${deep(10_000)}}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}]}`;
    const anthropic = await post(stack.url, '/v1/messages', toolUse, { 'x-api-key': stack.key });
    expect(anthropic.status).toBe(400);
    expect(anthropic.json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const params = deep(10_000);
    const cases: [string, string, Record<string, string>][] = [
      ['/v1/chat/completions', chat(`,"tools":[{"type":"function","function":{"name":"f","parameters":${params}}}]`), bearer()],
      ['/v1/responses', `{"model":"m","input":"hi","tools":[{"type":"function","name":"f","parameters":${params}}]}`, bearer()],
      ['/v1/messages', `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${params}}]}`, { 'x-api-key': stack.key }],
      ['/v1beta/models/m:generateContent', `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":${params}}]}]}`, { 'x-goog-api-key': stack.key }],
    ];
    for (const [path, body, headers] of cases) {
      const answer = await post(stack.url, path, body, headers);
      expect(answer.status, path).toBe(400);
      expect(lastCall()?.status).toBe('invalid_request');
    }
  });

  it('a bad percent-escape in the Google model path is a 400 in the Google shape', async () => {
    const answer = await post(stack.url, '/v1beta/models/%ZZ:generateContent', '{"contents":[]}', { 'x-goog-api-key': stack.key });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(answer.json.error.message).toMatch(/percent-encoded/);
  });

  it('150,000 Anthropic messages convert without overflowing the stack (no push(...spread)), and the gateway caps arrays', async () => {
    const messages = Array.from({ length: 150_000 }, () => ({ role: 'user', content: 'a' }));
    expect(anthropicMessagesAdapter.parseRequest({ model: 'm', max_tokens: 8, messages }, {}).messages).toHaveLength(150_000);
    const body = `{"model":"m","max_tokens":8,"messages":[${new Array(150_000).fill('{"role":"user","content":"a"}').join(',')}]}`;
    const answer = await post(stack.url, '/v1/messages', body, { 'x-api-key': stack.key });
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toMatch(/messages has 150000 elements; at most 100000/);
  });

  it('invalid UTF-8 is rejected (never replaced with U+FFFD) and stored as a rejected call', async () => {
    const body = Buffer.concat([Buffer.from('{"model":"m","messages":[{"role":"user","content":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}]}')]);
    const answer = await post(stack.url, '/v1/chat/completions', body, bearer());
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toMatch(/not valid UTF-8/);
    expect(lastCall()).toMatchObject({ status: 'invalid_request', httpStatus: 400, upstreamModel: null });
  });

  it.each([
    ['empty content', '/v1/messages', '{"model":"m","max_tokens":8,"messages":[{"role":"user","content":""}]}', /non-empty content/],
    ['empty conversation', '/v1/chat/completions', '{"model":"m","messages":[{"role":"system","content":"s"}]}', /conversation is empty/],
    ['dangling tool result', '/v1/chat/completions', '{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"tool","tool_call_id":"ghost","content":"r"}]}', /answers no earlier tool call/],
    [
      'duplicate tool-call ids',
      '/v1/responses',
      '{"model":"m","input":[{"role":"user","content":"hi"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"}]}',
      /used by more than one tool call/,
    ],
  ])('%s is a typed invalid_request naming the field, decided before any upstream call', async (_name, path, body, message) => {
    const requestsBefore = stack.sim?.stats.requests ?? 0;
    const headers = path === '/v1/messages' ? { 'x-api-key': stack.key } : bearer();
    const answer = await post(stack.url, path, body, headers);
    expect(answer.status).toBe(400);
    expect(answer.json.error.message).toMatch(message);
    expect(answer.json.error.message).toMatch(/^(messages|input|contents)/);
    expect(lastCall()).toMatchObject({ status: 'invalid_request', upstreamModel: null });
    expect(stack.sim?.stats.requests ?? 0).toBe(requestsBefore);
  });

  it('a key under a percent-encoded name is accepted but never stored in the path', async () => {
    const answer = await post(stack.url, `/v1beta/models/m:generateContent?alt=json&%6Bey=${stack.key}`, '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}');
    expect(answer.status).toBe(200);
    const call = lastCall();
    expect(call?.status).toBe('ok');
    expect(call?.path).toBe('/v1beta/models/m:generateContent?alt=json&%6Bey=REDACTED');
    expect(call?.path).not.toContain(stack.key);
    // Another parameter carrying the key is redacted too; two different keys are refused.
    await post(stack.url, `/v1/chat/completions?note=${encodeURIComponent(stack.key)}`, chat(), bearer());
    expect(lastCall()?.path).toBe('/v1/chat/completions?REDACTED');
    const other = stack.newKey();
    const conflicting = await post(stack.url, `/v1/chat/completions?KEY=${other.key}`, chat(), bearer());
    expect(conflicting.status).toBe(401);
    expect(conflicting.json.error.message).toMatch(/more than one different API key/);
  });

  it('a stalled request body is a 408 after the body idle timeout, in the client\'s shape', async () => {
    const url = new URL(stack.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(`POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${stack.key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`);
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(answer).toMatch(/"type":"error"/);
    expect(answer.toLowerCase()).toMatch(/connection: close/);
  });

  it('a client that never finishes its headers is cut off after the header timeout', async () => {
    const url = new URL(stack.url);
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write('POST /v1/messages HTTP/1.1\r\nhost: x\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a streamed response honours the client\'s Connection: close', async () => {
    const url = new URL(stack.url);
    const closed = await new Promise<{ text: string; closedAfterEndMs: number }>((resolve) => {
      const body = chat(',"stream":true');
      const socket = net.connect(Number(url.port), url.hostname, () => {
        socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${stack.key}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      });
      let text = '';
      let doneAt = 0;
      socket.on('data', (chunk) => {
        text += chunk.toString();
        if (doneAt === 0 && text.includes('[DONE]')) doneAt = Date.now();
      });
      socket.on('close', () => resolve({ text, closedAfterEndMs: Date.now() - doneAt }));
    });
    expect(closed.text).toMatch(/^HTTP\/1.1 200/);
    expect(closed.text.toLowerCase()).toMatch(/\r\nconnection: close\r\n/);
    expect(closed.closedAfterEndMs).toBeLessThan(2_000);
  });

  it('more concurrent calls than the per-session cap get a 429 in the protocol shape', async () => {
    const url = new URL(stack.url);
    // Two calls that hold their slot (their bodies stall until the idle timeout)...
    const holders = [0, 1].map(
      () =>
        new Promise<void>((resolve) => {
          const socket = net.connect(Number(url.port), url.hostname, () => socket.write(`POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: ${stack.key}\r\ncontent-length: 50\r\n\r\n{`));
          socket.on('close', () => resolve());
          socket.on('data', () => undefined);
        }),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const third = await post(stack.url, '/v1/messages', '{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}', { 'x-api-key': stack.key });
    expect(third.status).toBe(429);
    expect(third.json).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    await Promise.all(holders);
    const after = await post(stack.url, '/v1/messages', '{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}', { 'x-api-key': stack.key });
    expect(after.status).toBe(200);
  });
});

/** A real upstream in front of the simulator that misbehaves the way vLLM's server can. */
async function startFlakyUpstream(sim: SimServer, mode: 'reset-reused-socket' | 'close-answer-early'): Promise<{ url: string; resets: number; close(): Promise<void> }> {
  const state = { resets: 0 };
  const requestsPerSocket = new WeakMap<net.Socket, number>();
  const server = http.createServer((req, res) => {
    const count = (requestsPerSocket.get(req.socket) ?? 0) + 1;
    requestsPerSocket.set(req.socket, count);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (mode === 'reset-reused-socket' && count > 1 && req.url?.includes('chat/completions')) {
        // The idle keep-alive socket was closed by the server just as the request arrived.
        state.resets += 1;
        req.socket.destroy();
        return;
      }
      void fetch(new URL(req.url ?? '/', `${sim.url.replace(/\/v1$/, '')}/`), { method: req.method, headers: { 'content-type': 'application/json' }, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) }).then(async (answer) => {
        const text = Buffer.from(await answer.arrayBuffer());
        if (mode === 'close-answer-early' && req.url?.includes('chat/completions')) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': text.length });
          res.write(text.subarray(0, Math.floor(text.length / 2)));
          setTimeout(() => req.socket.destroy(), 20);
          return;
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get resets() {
      return state.resets;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('upstream connection faults (issue 15, items 5 and 6)', () => {
  it('a request that meets a pooled socket the upstream closed is retried once on a fresh connection', async () => {
    const sim = await startSimServer({ policy: () => ({ content: 'ok' }) });
    const flaky = await startFlakyUpstream(sim, 'reset-reused-socket');
    const stack = await startGatewayStack({ upstreamUrl: flaky.url, gateway: { upstreamModel: 'polar-sim-qwen3' } });
    try {
      for (let i = 0; i < 3; i += 1) {
        const answer = await post(stack.url, '/v1/chat/completions', chat(), { authorization: `Bearer ${stack.key}` });
        expect(answer.status, answer.body).toBe(200);
      }
      expect(flaky.resets).toBeGreaterThanOrEqual(1);
      expect(stack.store.calls.listBySession(stack.sessionId).map((call) => call.status)).toEqual(['ok', 'ok', 'ok']);
    } finally {
      await stack.close();
      await flaky.close();
      await sim.close();
    }
  });

  it('an upstream that closes a non-streamed answer early is upstream_error with an accurate hint', async () => {
    const sim = await startSimServer({ policy: () => ({ content: 'ok' }) });
    const flaky = await startFlakyUpstream(sim, 'close-answer-early');
    const stack = await startGatewayStack({ upstreamUrl: flaky.url, gateway: { upstreamModel: 'polar-sim-qwen3' } });
    try {
      const answer = await post(stack.url, '/v1/messages', '{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}', { 'x-api-key': stack.key });
      expect(answer.status).toBe(502);
      expect(answer.json).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      const [call] = stack.store.calls.listBySession(stack.sessionId);
      expect(call?.status).toBe('upstream_error');
      expect(call?.error).toMatch(/closed its answer before it was complete/);
      expect(call?.error).not.toMatch(/Start the model server/);
    } finally {
      await stack.close();
      await flaky.close();
      await sim.close();
    }
  });
});

describe('session-bound endpoints (issue 15, item 3; the Docker test drives them from inside a container)', () => {
  function postOnSocket(socketPath: string, key: string): Promise<{ status: number; body: string }> {
    const body = '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}';
    return new Promise((resolve, reject) => {
      const req = http.request({ socketPath, method: 'POST', path: '/v1beta/models/m:generateContent', headers: { 'x-goog-api-key': key, 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('accepts only the owning session, answers a foreign key with a 403 in the Google shape and records it once per request', async () => {
    const { mkdtempSync, rmSync, existsSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-bind-'));
    const stack = await startGatewayStack();
    try {
      const other = stack.newKey();
      const socketPath = path.join(dir, 'gateway.sock');
      await stack.gateway.bindSession(stack.key, socketPath);
      expect((await postOnSocket(socketPath, stack.key)).status).toBe(200);
      const refused = await postOnSocket(socketPath, other.key);
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 403, status: 'PERMISSION_DENIED' } });
      expect(stack.store.calls.listBySession(other.id)).toEqual([]);
      expect(stack.store.securityEvents.forSession(stack.sessionId)).toMatchObject([{ kind: 'foreign-session-key', sessionId: stack.sessionId }]);
      // The shared TCP listener still accepts any session's key (polar proxy).
      expect((await post(stack.url, '/v1/chat/completions', chat(), { authorization: `Bearer ${other.key}` })).status).toBe(200);
      await stack.gateway.unbindSession(stack.key);
      await expect(postOnSocket(socketPath, stack.key)).rejects.toThrow();
      expect(existsSync(dir)).toBe(true);
      await expect(stack.gateway.bindSession('polar-not-a-key', path.join(dir, 'x.sock'))).rejects.toThrow(/no session/);
    } finally {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
