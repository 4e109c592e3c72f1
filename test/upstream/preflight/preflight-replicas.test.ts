// The preflight of several replicas against real simulators: all must pass and serve the same model
// and chat template, else a one-line typed error (exit 3, or the replica's own exit 5) naming the replica.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveUpstreamSpecs } from '../../../src/cli/upstream-specs.js';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../../src/config/sampling-policy.js';
import { EXIT_CODES, PolarError } from '../../../src/errors.js';
import { preflightReplicas } from '../../../src/upstream/preflight/preflight-replicas.js';
import { noopPolicy } from '../../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../../src/sim/sim-server.js';

const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function sim(options: Partial<SimServerOptions> = {}): Promise<string> {
  const server = await startSimServer({ policy: noopPolicy(), ...options });
  servers.push(server);
  return server.url;
}

async function failure(promise: Promise<unknown>): Promise<PolarError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(PolarError);
  expect((error as PolarError).message).not.toContain('\n');
  expect((error as PolarError).hint).toBeTruthy();
  return error as PolarError;
}

describe('preflightReplicas', () => {
  it('returns one profile per replica when all serve the same model and template', async () => {
    const urls = [await sim(), await sim()];
    const profiles = await preflightReplicas(urls, { sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profiles.map((profile) => profile.url)).toEqual(urls);
    expect(profiles[1]?.templateFingerprint).toBe(profiles[0]?.templateFingerprint);
  });

  it('refuses a replica that serves another model (exit 3, naming it)', async () => {
    const other = await sim({ modelName: 'other-model' });
    const error = await failure(preflightReplicas([await sim(), other], { sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(EXIT_CODES.config);
    expect(error.message).toContain(other);
    expect(error.message).toContain('other-model');
  });

  it('refuses a replica with another chat template (exit 3, naming it)', async () => {
    const other = await sim({ toolFormat: 'qwen3_coder' });
    const error = await failure(preflightReplicas([await sim(), other], { sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(EXIT_CODES.config);
    expect(error.message).toMatch(/template fingerprint/);
    expect(error.message).toContain(other);
  });

  it('names the replica whose own preflight fails (unreachable: exit 5)', async () => {
    const dead = await sim();
    await servers.pop()?.close();
    const error = await failure(preflightReplicas([await sim(), dead], { sampling: DEFAULT_ROLLOUT_SAMPLING, timeoutMs: 5_000 }));
    expect(error.exitCode).toBe(EXIT_CODES.upstreamUnavailable);
    expect(error.message).toContain(`upstream replica ${dead}`);
  });
});

describe('resolveUpstreamSpecs', () => {
  it('takes every --upstream, then the lines of --upstreams-file (blank lines and comments skipped)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-upstreams-'));
    try {
      const file = path.join(dir, 'upstreams.txt');
      writeFileSync(file, '# replicas\nhttp://10.0.0.2:8000/v1\n\n  http://10.0.0.3:8000/v1  # gpu 3\r\n');
      expect(resolveUpstreamSpecs(['sim:noop'], file)).toEqual(['sim:noop', 'http://10.0.0.2:8000/v1', 'http://10.0.0.3:8000/v1']);
      expect(resolveUpstreamSpecs(undefined, undefined)).toEqual([]);
      writeFileSync(file, '# nothing\n');
      expect(() => resolveUpstreamSpecs(undefined, file)).toThrow(/lists no upstream/);
      expect(() => resolveUpstreamSpecs(undefined, path.join(dir, 'missing.txt'))).toThrow(/cannot read --upstreams-file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
