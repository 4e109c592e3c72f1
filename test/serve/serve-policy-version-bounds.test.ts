// Policy versions are integers a number holds exactly (at most 2^53 - 1). A resume with 99999999999999999999 (read
// as 1e20) is refused and changes nothing; a store an earlier polar let hold such a version is refused at start
// with the fix, and `--policy-version` (the trainer's current version) replaces it, after which resumes work again.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { startTestServe } from '../helpers/start-test-serve.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-version-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('policy versions within 2^53 - 1', () => {
  it('refuses a resume with 99999999999999999999 (400, the bound named) and keeps the version', async () => {
    const serve = await startTestServe(tempDir(), cleanups);
    const refused = await serve.call('POST', '/v1/generation/resume', '{"policy_version": 99999999999999999999}');
    expect(refused).toMatchObject({ status: 400, json: { error: { type: 'invalid_request', message: expect.stringContaining('9007199254740991') } } });
    expect(serve.store.batches.policyVersion()).toBe(0);
    expect((await serve.call('POST', '/v1/generation/resume', { policy_version: 1 })).status).toBe(200);
    expect(serve.store.batches.policyVersion()).toBe(1);
  });

  it('a store holding 1e20 is refused at start with the fix; --policy-version replaces it and resumes work again', async () => {
    const dir = tempDir();
    const store = openStore(path.join(dir, 'polar.db'));
    store.batches.setPolicyVersion(99999999999999999999);
    store.close();
    const refused = await startTestServe(dir, cleanups).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).message).toMatch(/holds policy version 100000000000000000000/);
    expect((refused as ConfigError).hint).toMatch(/--policy-version <n>/);
    const serve = await startTestServe(dir, cleanups, { policyVersion: 7 });
    expect(serve.store.batches.policyVersion()).toBe(7);
    expect((await serve.call('POST', '/v1/generation/resume', { policy_version: 8 })).status).toBe(200);
    expect((await serve.call('GET', '/v1/status')).json).toMatchObject({ generation: { policy_version: 8 } });
  });
});
