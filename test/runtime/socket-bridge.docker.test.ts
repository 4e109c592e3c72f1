// Docker tests of the gateway bridge: a host HTTP server on a Unix socket, reached from a
// `--network none` container through the in-container forwarder on 127.0.0.1.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContainerHandle, ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter } from '../../src/runtime/labels.js';
import { BRIDGE_MOUNT_DIR, bridgeMount, startForwarder, type Forwarder } from '../../src/runtime/socket-bridge.js';
import { dockerForTests, TEST_IMAGE, TEST_RUN_ID, testLabels } from './docker-test-support.js';

const runtime = await dockerForTests();
const NODE = '/polar/node/bin/node';
const PORT = 41017;

/** A one-line http client run with the mounted node: prints `status body` or `ERR code`. */
const CLIENT = `
const http = require('node:http');
const [url, method, bytes] = process.argv.slice(1);
const req = http.request(url, { method }, (res) => {
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (body += chunk));
  res.on('end', () => console.log(res.statusCode + ' ' + body));
});
req.on('error', (error) => console.log('ERR ' + error.code));
if (bytes) req.write(Buffer.alloc(Number(bytes), 'z'));
req.end();
`;

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe.skipIf(runtime === undefined)('socket bridge (real engine)', () => {
  const rt = runtime as ContainerRuntime;
  const dir = mkdtempSync(join(tmpdir(), 'polar-bridge-'));
  const seen: string[] = [];
  let server: Server;
  let box: ContainerHandle;
  let forwarder: Forwarder;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const body = await bodyOf(req);
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < 5; i++) {
          res.write(`data: ${i}\n\n`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, url: req.url, bytes: body.length }));
    });
    await new Promise<void>((resolve) => server.listen(join(dir, 'gateway.sock'), resolve));
    box = await rt.createContainer({
      image: TEST_IMAGE,
      labels: testLabels('bridge'),
      binds: [bridgeMount(dir), { hostPath: process.execPath, containerPath: NODE, readOnly: true }],
    });
    forwarder = await startForwarder(box, { socketPath: `${BRIDGE_MOUNT_DIR}/gateway.sock`, port: PORT, nodePath: NODE });
  });

  afterAll(async () => {
    await rt.removeContainers(runFilter(TEST_RUN_ID));
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  async function request(path: string, method = 'GET', bytes = 0): Promise<string> {
    const result = await box.exec([NODE, '-e', CLIENT, `${forwarder.url}${path}`, method, String(bytes)], { timeoutMs: 20_000 });
    expect(result.stderr).toBe('');
    return result.stdout.trim();
  }

  it('reaches the host server at 127.0.0.1:<port>', async () => {
    expect(forwarder.url).toBe(`http://127.0.0.1:${PORT}`);
    expect(await request('/v1/models?probe=1')).toBe('200 {"method":"GET","url":"/v1/models?probe=1","bytes":0}');
    expect(seen).toContain('GET /v1/models?probe=1');
  });

  it('carries large request bodies and streamed responses', async () => {
    expect(await request('/v1/chat/completions', 'POST', 3_000_000)).toBe('200 {"method":"POST","url":"/v1/chat/completions","bytes":3000000}');
    expect(await request('/stream')).toBe(`200 ${[0, 1, 2, 3, 4].map((i) => `data: ${i}\n\n`).join('')}`.trim());
  });

  it('serves concurrent connections', async () => {
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => request(`/c/${i}`)));
    expect(results).toEqual([1, 2, 3, 4, 5].map((i) => `200 {"method":"GET","url":"/c/${i}","bytes":0}`));
  });

  it('reaches nothing else: no other address, and the mount is read-only', async () => {
    const outside = await box.exec([NODE, '-e', CLIENT, 'http://1.1.1.1/', 'GET', '0'], { timeoutMs: 20_000 });
    expect(outside.stdout.trim()).toMatch(/^ERR (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED)$/);
    const wrongPort = await box.exec([NODE, '-e', CLIENT, `http://127.0.0.1:${PORT + 1}/`, 'GET', '0'], { timeoutMs: 20_000 });
    expect(wrongPort.stdout.trim()).toBe('ERR ECONNREFUSED');
    const replace = await box.exec(['rm', '-f', `${BRIDGE_MOUNT_DIR}/gateway.sock`]);
    expect(replace.exitCode).not.toBe(0);
    expect(replace.stderr).toMatch(/Read-only file system/);
  });

  it('says why when the forwarder cannot start', async () => {
    await expect(startForwarder(box, { socketPath: `${BRIDGE_MOUNT_DIR}/gateway.sock`, port: PORT + 2, nodePath: '/no/node', timeoutMs: 1_000 })).rejects.toThrow(
      /did not accept connections on 127\.0\.0\.1:41019.*\/no\/node/s,
    );
  });
});
