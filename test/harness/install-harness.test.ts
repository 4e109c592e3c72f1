// installHarness with a fake npm: layout, marker, idempotence, force, atomicity and typed failures, offline.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PolarError } from '../../src/errors.js';
import { harnessBundleDir } from '../../src/harness/harness-cache.js';
import { HarnessInstallError } from '../../src/harness/harness-errors.js';
import { installHarness, type HarnessInstallEvent, type InstallHarnessOptions } from '../../src/harness/install-harness.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';

const FAKE_NPM = [process.execPath, path.join(import.meta.dirname, 'fixtures', 'fake-npm.mjs')];

let root: string;
let harnessesDir: string;
let cacheDir: string;

function writeFakeHarness(name: string, extra: Record<string, unknown> = {}): void {
  const usesNode = name !== 'fake-native';
  mkdirSync(path.join(harnessesDir, name), { recursive: true });
  const manifest = {
    name,
    package: name,
    version: '1.0.0',
    protocol: 'openai-chat',
    bin: usesNode ? `node_modules/${name}/cli.js` : `node_modules/${name}/bin/fake`,
    usesNode,
    argv: usesNode ? ['{node}', '{bin}', '{instruction}'] : ['{bin}', '{instruction}'],
    env: {},
    files: [],
    stdinNull: true,
    baseUrlStyle: 'with-v1',
    disabled: ['nothing'],
    toolHints: { shell: 'bash', shellCommandArg: 'command' },
    ...extra,
  };
  writeFileSync(path.join(harnessesDir, name, 'harness.json'), JSON.stringify(manifest));
}

function options(extra: InstallHarnessOptions = {}): InstallHarnessOptions {
  return { cacheDir, harnessesDir, npmCommand: FAKE_NPM, ...extra };
}

function npmCalls(): number {
  const log = path.join(cacheDir, 'npm-calls.log');
  return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').length : 0;
}

function leftovers(): string[] {
  const dir = path.join(cacheDir, 'harnesses');
  return existsSync(dir) ? readdirSync(dir).filter((entry) => entry.startsWith('.tmp-')) : [];
}

beforeEach(() => {
  root = mkdtempSyncIn('polar-install-');
  harnessesDir = path.join(root, 'harnesses');
  cacheDir = path.join(root, 'cache');
  for (const name of ['fake', 'fake-native', 'fake-broken', 'fake-no-bin', 'fake-wrong-version', 'fake-crash']) writeFakeHarness(name);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function mkdtempSyncIn(prefix: string): string {
  const dir = path.join(os.tmpdir(), `${prefix}${process.pid}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('installHarness', () => {
  it('installs package + node + marker into <cache>/harnesses/<name>-<version>, reporting progress', async () => {
    const events: HarnessInstallEvent[] = [];
    const result = await installHarness('fake', options({ onProgress: (event) => events.push(event) }));
    const dir = path.join(cacheDir, 'harnesses', 'fake-1.0.0');
    expect(result).toEqual({ name: 'fake', dir, reportedVersion: 'fake 1.0.0', alreadyInstalled: false });
    expect(events.map((event) => (event.type === 'step' ? event.step : event.type))).toEqual(['npm-install', 'copy-node', 'verify', 'installed']);
    expect(JSON.parse(readFileSync(path.join(dir, 'polar-harness.json'), 'utf8'))).toMatchObject({ name: 'fake', package: 'fake', version: '1.0.0', reportedVersion: 'fake 1.0.0' });
    const { stdout } = await execa(path.join(dir, 'node', 'bin', 'node'), ['-p', 'process.version']);
    expect(stdout).toBe(process.version);
    expect(readFileSync(path.join(cacheDir, 'npm-calls.log'), 'utf8')).toContain('install --prefix');
    expect(readFileSync(path.join(cacheDir, 'npm-calls.log'), 'utf8')).toMatch(/--no-audit --no-fund --omit=dev fake@1\.0\.0\n$/);
    expect(isHarnessInstalled(loadHarness('fake', harnessesDir), cacheDir)).toMatchObject({ installed: true, dir });
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    expect(leftovers()).toEqual([]);
  });

  it('runs a native executable directly for --version', async () => {
    await expect(installHarness('fake-native', options())).resolves.toMatchObject({ reportedVersion: 'fake-native 1.0.0' });
  });

  it('checks the version with a throw-away HOME, not the real one', async () => {
    const { dir } = await installHarness('fake', options());
    const seenHome = readFileSync(path.join(dir, 'package/node_modules/fake/seen-home'), 'utf8');
    expect(seenHome.startsWith(path.join(os.tmpdir(), 'polar-fake-version-'))).toBe(true);
    expect(existsSync(seenHome)).toBe(false);
  });

  it('is idempotent, and --force reinstalls', async () => {
    await installHarness('fake', options());
    const events: HarnessInstallEvent[] = [];
    await expect(installHarness('fake', options({ onProgress: (event) => events.push(event) }))).resolves.toMatchObject({ alreadyInstalled: true, reportedVersion: 'fake 1.0.0' });
    expect(events.map((event) => event.type)).toEqual(['already-installed']);
    expect(npmCalls()).toBe(1);
    await expect(installHarness('fake', options({ force: true }))).resolves.toMatchObject({ alreadyInstalled: false });
    expect(npmCalls()).toBe(2);
    expect(isHarnessInstalled(loadHarness('fake', harnessesDir), cacheDir).installed).toBe(true);
    expect(readdirSync(path.join(cacheDir, 'harnesses'))).toEqual(['fake-1.0.0']);
  });

  it('replaces a half-written bundle (no marker)', async () => {
    const dir = harnessBundleDir(cacheDir, { name: 'fake', version: '1.0.0' });
    mkdirSync(path.join(dir, 'package'), { recursive: true });
    writeFileSync(path.join(dir, 'package', 'junk'), 'x');
    expect(isHarnessInstalled(loadHarness('fake', harnessesDir), cacheDir)).toMatchObject({ installed: false, reason: 'incomplete install (no marker)' });
    await installHarness('fake', options());
    expect(existsSync(path.join(dir, 'package', 'junk'))).toBe(false);
    expect(isHarnessInstalled(loadHarness('fake', harnessesDir), cacheDir).installed).toBe(true);
  });

  it('does not trust a marker for another version', async () => {
    await installHarness('fake', options());
    writeFakeHarness('fake', { version: '1.0.1' });
    const moved = harnessBundleDir(cacheDir, { name: 'fake', version: '1.0.1' });
    rmSync(moved, { recursive: true, force: true });
    const oldDir = harnessBundleDir(cacheDir, { name: 'fake', version: '1.0.0' });
    await execa('cp', ['-a', oldDir, moved]);
    expect(isHarnessInstalled(loadHarness('fake', harnessesDir), cacheDir)).toMatchObject({ installed: false, reason: 'marker is for fake@1.0.0' });
  });

  it.each([
    ['fake-broken', /npm install fake-broken@1\.0\.0 failed[\s\S]*404 Not Found/],
    ['fake-no-bin', /executable node_modules\/fake-no-bin\/cli\.js is missing/],
    ['fake-wrong-version', /printed "9\.9\.9", expected 1\.0\.0/],
    ['fake-crash', /--version` failed[\s\S]*boom: cannot start/],
  ])('%s: a typed error with the output tail, and nothing left behind', async (name, message) => {
    const attempt = installHarness(name, options());
    await expect(attempt).rejects.toThrow(HarnessInstallError);
    await expect(installHarness(name, options())).rejects.toThrow(message);
    expect(leftovers()).toEqual([]);
    expect(existsSync(harnessBundleDir(cacheDir, { name, version: '1.0.0' }))).toBe(false);
  });

  it('reports a cancelled install as cancelled (exit code 130)', async () => {
    const attempt = installHarness('fake', options({ signal: AbortSignal.abort() }));
    await expect(attempt).rejects.toThrow(PolarError);
    await expect(installHarness('fake', options({ signal: AbortSignal.abort() }))).rejects.toMatchObject({ code: 'cancelled', exitCode: 130 });
    expect(leftovers()).toEqual([]);
  });

  it('names the known harnesses for an unknown one', async () => {
    await expect(installHarness('nope', options())).rejects.toThrow(/no harness "nope"/);
  });
});
