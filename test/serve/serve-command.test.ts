// `polar serve` as a command: refuses to start without an upstream, generates and prints a token when none
// is given (stderr), binds to loopback, answers with it, refuses without it, and ends cleanly on SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';

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
});
