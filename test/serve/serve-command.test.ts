// `polar serve` as a command: refuses to start without an upstream, generates and prints a token when none
// is given (stderr), binds to loopback, answers with it, refuses without it, and ends cleanly on SIGTERM; the
// capture flags (--token-in, --tool-format, --eos-token-ids) reach the engine.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { readResponse } from '../helpers/read-response.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { until } from '../helpers/until.js';

const POLAR = path.resolve(import.meta.dirname, '../../bin/polar.js');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('polar serve (command)', () => {
  it('needs --upstream (usage error, exit 2)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-cmd-'));
    dirs.push(dir);
    const result = await execa(POLAR, ['serve', '--db', path.join(dir, 'p.db'), '--port', '0'], { reject: false, env: { POLAR_SERVE_TOKEN: '' } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/needs --upstream/);
  });

  it('prints a generated token to stderr, listens on loopback, and stops on SIGTERM', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-cmd-'));
    dirs.push(dir);
    const env = { ...process.env } as Record<string, string>;
    delete env.POLAR_SERVE_TOKEN;
    const child = execa(POLAR, ['serve', '--upstream', 'sim:oracle', '--db', path.join(dir, 'p.db'), '--port', '0'], { reject: false, env, extendEnv: false, buffer: false });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    for (let waited = 0; waited < 30_000 && !/listening at/.test(out); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    const url = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    const token = /token \(send as Authorization: Bearer <token>\): (\S+)/.exec(err)?.[1];
    expect(url, out + err).toBeDefined();
    expect(token).toMatch(/^polar-serve-/);
    expect((await fetch(`${url}/v1/status`)).status).toBe(401);
    const status = await fetch(`${url}/v1/status`, { headers: { authorization: `Bearer ${token}` } });
    expect(status.status).toBe(200);
    expect(((await status.json()) as { generation: { paused: boolean } }).generation.paused).toBe(false);
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(0);
  });

  it('refuses an unknown --tool-format (usage error, exit 2)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-cmd-'));
    dirs.push(dir);
    const result = await execa(POLAR, ['serve', '--upstream', 'sim:oracle', '--db', path.join(dir, 'p.db'), '--port', '0', '--tool-format', 'json'], { reject: false });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--tool-format must be one of hermes, qwen3_coder/);
  });

  it('serves an SGLang without /tokenize with --eos-token-ids (--token-in, --tool-format as the defaults; token_in refused 409), not without it', async () => {
    const upstream = 'sim:oracle?engine=sglang&tokenize=false';
    const task = JSON.parse(readFileSync(new URL('../fixtures/swebench/verified-sample.jsonl', import.meta.url), 'utf8').split('\n')[0]!);
    const serveWith = async (flags: string[]) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-cmd-'));
      dirs.push(dir);
      const log = path.join(dir, 'serve.log');
      writeFileSync(log, '');
      const { child, url } = await spawnServe(['--upstream', upstream, '--db', path.join(dir, 'p.db'), '--token', 'cmd-token', ...flags], log);
      const call = async (method: string, route: string, body?: unknown) =>
        readResponse(await fetch(`${url}${route}`, { method, headers: { authorization: 'Bearer cmd-token', 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }));
      return { child, call };
    };
    const served = await serveWith(['--eos-token-ids', '151645,151643', '--token-in', '--tool-format', 'qwen3_coder']);
    try {
      const refused = await served.call('POST', '/v1/rollouts', { harness: 'pi', tasks: [task] });
      expect(refused.status).toBe(409);
      expect(refused.json.error).toMatchObject({ type: 'capture_unavailable', message: expect.stringContaining('the server has no /tokenize route') });
      const status = (await served.call('GET', '/v1/status')).json.capture;
      expect(status).toMatchObject({ default: 'token_in', tool_format: 'qwen3_coder', upstreams: [{ engine: 'sglang', token_in: { available: false }, chat: { available: true } }] });
    } finally {
      served.child.kill('SIGTERM');
      await served.child;
    }
    const unserved = await serveWith(['--token-in']);
    try {
      const submitted = await unserved.call('POST', '/v1/rollouts', { harness: 'pi', tasks: [task] });
      expect(submitted.status).toBe(202);
      const failed = await until(async () => {
        const got = await unserved.call('GET', `/v1/rollouts/${submitted.json.id}`);
        return got.json.status === 'failed' ? got.json : undefined;
      }, { timeoutMs: 60_000, everyMs: 200 });
      expect(failed.status_reason).toMatch(/preflight \(eos-token-ids\).*--eos-token-ids/);
    } finally {
      unserved.child.kill('SIGTERM');
      await unserved.child;
    }
  }, 120_000);
});
