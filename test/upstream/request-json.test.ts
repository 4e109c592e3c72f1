// The one JSON-over-HTTP request the preflight probes and the engine-control routes share, against real
// sockets: what it sends, any status as an answer, a body that is not JSON kept as text, and a server that
// gives no answer (refused, cut, timed out) turned into each caller's own typed error with its message.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ControlUnreachableError, controlRequest } from '../../src/upstream/engines/control-http.js';
import { EngineControlError } from '../../src/upstream/engines/engine-control.js';
import { getJsonObject } from '../../src/upstream/engines/get-json-object.js';
import { SGLANG_CONTROL } from '../../src/upstream/engines/sglang-control.js';
import { VLLM_CONTROL } from '../../src/upstream/engines/vllm-control.js';
import { ProbeUnreachableError, probeJson } from '../../src/upstream/preflight/probe-http.js';
import { requestJson } from '../../src/upstream/request-json.js';

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real server answering with `handle`; `seen` records each request as it arrived. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ root: URL; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') });
      handle(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { root: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`), seen };
}

/** A port nothing listens on (a server bound, then closed). */
async function refusedRoot(): Promise<URL> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return new URL(`http://127.0.0.1:${port}/`);
}

const signal = () => AbortSignal.timeout(10_000);

/** `promise` rejects with an instance of `type` whose message is exactly `message`. */
async function rejectsWith(promise: Promise<unknown>, type: new (message: string) => Error, message: string): Promise<void> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(type);
  expect((error as Error).message).toBe(message);
}

describe('requestJson', () => {
  it('sends JSON with its length, a body-less POST as content-length 0, a GET with neither; the probe marks itself', async () => {
    const { root, seen } = await serve((_req, res) => res.end('{"ok":true}'));
    expect(await probeJson(new URL('v1/chat/completions', root), signal(), { a: 1 })).toEqual({ status: 200, text: '{"ok":true}', json: { ok: true } });
    await controlRequest(new URL('pause?mode=keep', root), 'POST', signal());
    await controlRequest(new URL('is_paused', root), 'GET', signal());
    const [probe, pause, get] = seen as [Seen, Seen, Seen];
    expect(probe).toMatchObject({ method: 'POST', url: '/v1/chat/completions', body: '{"a":1}' });
    expect(probe.headers).toMatchObject({ 'content-type': 'application/json', 'content-length': '7', accept: 'application/json', 'x-polar-preflight': '1' });
    expect(pause).toMatchObject({ method: 'POST', url: '/pause?mode=keep', body: '' });
    expect(pause.headers['content-length']).toBe('0');
    expect(pause.headers['content-type']).toBeUndefined();
    expect(pause.headers['x-polar-preflight']).toBeUndefined();
    expect(get.method).toBe('GET');
    expect(get.headers['content-length']).toBeUndefined();
  });

  it('answers any status, and keeps a body that is not JSON as text (json undefined)', async () => {
    const { root } = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad Gateway</html>\nnginx');
    });
    expect(await requestJson(new URL('health', root), { signal: signal(), unreachable: () => new Error('unused') })).toEqual({ status: 502, text: '<html>Bad Gateway</html>\nnginx', json: undefined });
    const empty = await serve((_req, res) => res.end());
    expect((await controlRequest(new URL('resume', empty.root), 'POST', signal())).json).toBeUndefined();
  });

  it('a refused connection is each caller\'s typed error, naming the server and the system code', async () => {
    const root = await refusedRoot();
    await rejectsWith(probeJson(new URL('v1/models', root), signal()), ProbeUnreachableError, `cannot reach ${root.origin} (ECONNREFUSED)`);
    await rejectsWith(controlRequest(new URL('is_paused', root), 'GET', signal()), ControlUnreachableError, `cannot reach ${root.origin} (ECONNREFUSED)`);
  });

  it('the user sees what happened and how to fix it when the engine is unreachable', async () => {
    const root = await refusedRoot();
    for (const [control, label] of [[VLLM_CONTROL, 'vLLM'], [SGLANG_CONTROL, 'SGLang']] as const) {
      const error = await control.resume(root, signal()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EngineControlError);
      expect((error as EngineControlError).message).toMatch(new RegExp(`^${label} at ${root.origin}: POST /(resume|continue_generation) failed: cannot reach ${root.origin} \\(ECONNREFUSED\\)$`));
      expect((error as EngineControlError).hint).toBe('Check that the server is up.');
    }
  });

  it('an engine error that is not JSON reaches the user as the first line of its text', async () => {
    const { root } = await serve((_req, res) => {
      res.writeHead(500);
      res.end('Internal Server Error\nTraceback (most recent call last): …');
    });
    await expect(VLLM_CONTROL.pause(root, 'keep', signal())).rejects.toThrow(`vLLM at ${root.origin} answered POST /pause with 500: Internal Server Error`);
    await expect(SGLANG_CONTROL.pause(root, 'keep', signal())).rejects.toThrow(`SGLang at ${root.origin} answered POST /pause_generation with 500: Internal Server Error`);
  });

  it('an answer cut short, or none before the caller gives up, is the caller\'s typed error', async () => {
    const { root, seen } = await serve((req, res) => {
      if (req.url === '/cut') {
        res.writeHead(200, { 'content-length': '100' });
        res.write('{"partial":');
        setImmediate(() => res.socket?.destroy());
      }
      // Any other path never answers.
    });
    await rejectsWith(probeJson(new URL('cut', root), signal()), ProbeUnreachableError, `${root.origin} closed the answer early`);
    await rejectsWith(controlRequest(new URL('cut', root), 'GET', signal()), ControlUnreachableError, `${root.origin} closed its answer to /cut early`);
    const gaveUp = new AbortController();
    const probe = probeJson(new URL('silent', root), gaveUp.signal).then(() => undefined, (caught: unknown) => caught);
    const control = controlRequest(new URL('silent', root), 'GET', gaveUp.signal).then(() => undefined, (caught: unknown) => caught);
    await vi.waitFor(() => expect(seen.filter((request) => request.url === '/silent')).toHaveLength(2));
    gaveUp.abort();
    await rejectsWith(Promise.reject(await probe), ProbeUnreachableError, `${root.origin} did not answer in time`);
    await rejectsWith(Promise.reject(await control), ControlUnreachableError, `${root.origin}/silent did not answer in time`);
    // Already given up: nothing is sent.
    await rejectsWith(probeJson(new URL('silent', root), gaveUp.signal), ProbeUnreachableError, `${root.origin} did not answer in time`);
    expect(seen.filter((request) => request.url === '/silent')).toHaveLength(2);
  });

  it('getJsonObject: the JSON object of a 200, else undefined (another status, an array, not JSON, no server), never a throw', async () => {
    const { root, seen } = await serve((req, res) => {
      const bodies: Record<string, [number, string]> = { '/info': [200, '{"model_path":"m"}'], '/missing': [404, '{"detail":"Not Found"}'], '/list': [200, '[1]'], '/html': [200, '<html>'] };
      const [status, body] = bodies[req.url ?? ''] ?? [500, ''];
      res.writeHead(status);
      res.end(body);
    });
    expect(await getJsonObject(new URL('info', root), signal(), { 'x-polar-preflight': '1' })).toEqual({ model_path: 'm' });
    expect(seen[0]?.headers['x-polar-preflight']).toBe('1');
    for (const path of ['missing', 'list', 'html']) expect(await getJsonObject(new URL(path, root), signal())).toBeUndefined();
    expect(await getJsonObject(new URL('info', await refusedRoot()), signal())).toBeUndefined();
  });
});
