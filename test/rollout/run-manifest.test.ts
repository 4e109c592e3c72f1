// Run manifests: the diff names exactly the fields that differ; polar's version and files are read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCapture, diffManifests, imageDigest, readPolarVersion, sha256File } from '../../src/rollout/run-manifest.js';
import { registryOf, resolveRegistryAuth } from '../../src/runtime/registry-auth.js';

describe('diffManifests', () => {
  const base = { upstream: { url: 'http://h/v1', model: 'm' }, sampling: { mode: 'run', temperature: 1 }, eosTokenIds: [1, 2], images: { 'a:latest': 'sha256:1' } };

  it('names exactly the differing leaves, by dotted path', () => {
    const other = { ...base, sampling: { mode: 'run', temperature: 0.7 } };
    expect(diffManifests(base, other)).toEqual([{ field: 'sampling.temperature', a: 1, b: 0.7 }]);
    expect(diffManifests(base, structuredClone(base))).toEqual([]);
  });

  it('compares arrays whole and reports fields present on one side only', () => {
    expect(diffManifests(base, { ...base, eosTokenIds: [1], images: {} })).toEqual([
      { field: 'eosTokenIds', a: [1, 2], b: [1] },
      { field: 'images', a: undefined, b: {} },
      { field: 'images.a:latest', a: 'sha256:1', b: undefined },
    ]);
    expect(diffManifests(null, { polar: { version: '1' } })).toEqual([{ field: 'polar.version', a: undefined, b: '1' }]);
  });
});

describe('describeCapture', () => {
  it('token_in with the tool format the gateway parses with (the flag, else the server\'s parser, else hermes); chat without one (no null leaf in a manifest)', () => {
    expect(describeCapture(true, 'qwen3_coder', 'hermes')).toEqual({ mode: 'token_in', toolFormat: 'qwen3_coder' });
    expect(describeCapture(true, undefined, 'qwen3_coder')).toEqual({ mode: 'token_in', toolFormat: 'qwen3_coder' });
    expect(describeCapture(true, undefined, undefined)).toEqual({ mode: 'token_in', toolFormat: 'hermes' });
    expect(describeCapture(false, 'qwen3_coder', 'hermes')).toEqual({ mode: 'chat' });
    expect(describeCapture(undefined, undefined, undefined)).toEqual({ mode: 'chat' });
  });
});

describe('manifest inputs', () => {
  it('reads the package version and the git commit of a checkout', () => {
    const polar = readPolarVersion();
    expect(polar.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(polar.gitCommit === null || /^[0-9a-f]{40}$/.test(polar.gitCommit)).toBe(true);
  });

  it('hashes a file and prefers a registry digest over the image id', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-manifest-'));
    try {
      const file = path.join(dir, 'd.jsonl');
      writeFileSync(file, 'abc');
      expect(await sha256File(file)).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(imageDigest({ id: 'sha256:i', repoDigests: ['r@sha256:d'] })).toBe('r@sha256:d');
    expect(imageDigest({ id: 'sha256:i', repoDigests: [] })).toBe('sha256:i');
  });
});

describe('registry credentials from the Docker config', () => {
  it('finds the registry of a reference', () => {
    expect(registryOf('swebench/sweb.eval.x86_64.a:latest')).toBe('docker.io');
    expect(registryOf('ubuntu')).toBe('docker.io');
    expect(registryOf('ghcr.io/org/img:1')).toBe('ghcr.io');
    expect(registryOf('localhost:5000/img')).toBe('localhost:5000');
  });

  it('decodes auths entries and falls back to anonymous', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-docker-config-'));
    try {
      const config = path.join(dir, 'config.json');
      writeFileSync(config, JSON.stringify({ auths: { 'https://index.docker.io/v1/': { auth: Buffer.from('me:secret:x').toString('base64') }, 'ghcr.io': { identitytoken: 'tok' } } }));
      expect(resolveRegistryAuth('swebench/x:latest', config)).toEqual({ username: 'me', password: 'secret:x', serveraddress: 'https://index.docker.io/v1/' });
      expect(resolveRegistryAuth('ghcr.io/o/i', config)).toEqual({ identitytoken: 'tok', serveraddress: 'ghcr.io' });
      expect(resolveRegistryAuth('quay.io/o/i', config)).toBeUndefined();
      expect(resolveRegistryAuth('x', path.join(dir, 'missing.json'))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
