// The README's two commands, run the way a newcomer would in a fresh clone of this checkout:
// `npm install && npm run quickstart`, then `npm test`. To stay cheap it reuses what is machine-wide (the
// Docker engine and its images, the harness cache) and the dependencies already downloaded: node_modules is
// copied in before `npm install --offline`, which then only has polar's own part to do (`prepare` builds
// dist/). `npm test` runs a small subset, enough to see its set-up lines and both projects pass.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../runtime/docker-test-support.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The environment of a newcomer's shell: no variables of the vitest run that started this test. */
function newcomerEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('VITEST') || key === 'NODE_OPTIONS' || key === 'FORCE_COLOR' || key.startsWith('npm_') || key === 'TEST') continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

const docker = await dockerForTests();

describe.skipIf(docker === undefined)("the README's two commands in a fresh clone", () => {
  let dir: string;
  let clone: string;
  let env: Record<string, string>;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'polar-newcomer-'));
    clone = path.join(dir, 'polar');
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    // Dependencies as `npm install` would have fetched them (a real copy: npm may write into it).
    cpSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(clone, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    env = newcomerEnv({ POLAR_DB: path.join(dir, 'polar.db'), POLAR_LOG_DIR: path.join(dir, 'logs') });
  }, 300_000);

  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('npm install builds dist/, and polar then starts from the build', async () => {
    expect(existsSync(path.join(clone, 'dist'))).toBe(false);
    const install = await execa('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: clone, env, all: true, reject: false });
    expect(install.exitCode, install.all).toBe(0);
    expect(existsSync(path.join(clone, 'dist/cli/run.js'))).toBe(true);
    const version = await execa('node', ['bin/polar.js', '--version'], { cwd: clone, env });
    expect(version.stdout).toBe('0.1.0');
    expect(version.stderr).toBe(''); // no "running the TypeScript sources" note: dist/ is used
  }, 600_000);

  it('npm run quickstart ends with reward 1 and the next command', async () => {
    const quickstart = await execa('npm', ['run', '--silent', 'quickstart'], { cwd: clone, env, all: true, reject: false });
    expect(quickstart.exitCode, quickstart.all).toBe(0);
    const lines = quickstart.stdout.trimEnd().split('\n');
    expect(lines.filter((line) => /^\s+Docker engine\s+\d+s/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /^\s+test base image\s+\d+s/.test(line))).toHaveLength(1);
    expect(lines.filter((line) => /^Done in \d+ s: session completed, reward 1\.$/.test(line))).toHaveLength(1);
    expect(lines.at(-3)).toMatch(/^Next: polar runs show \S+$/);
    expect(lines.at(-2)).toBe('      polar view');
    expect(lines.at(-1)).toMatch(/^ {6}polar export jsonl --run \S+ -o rows\.jsonl$/);
    expect(lines.length).toBeLessThan(40); // one line per step, not debootstrap's log
    // Nothing the newcomer did not ask for: no engine diagnostics (the simulator has no GPU), no phase timings.
    expect(quickstart.all).not.toMatch(/utilisation|ceiling|preemption|\[create /);
    const after = lines.slice(lines.findIndex((line) => line.startsWith('polar quickstart: rollout')));
    for (const line of after.filter((text) => !/^(Next: | {6})polar /.test(text))) expect(line.length, line).toBeLessThanOrEqual(100);
  }, 600_000);

  it('npm test: the set-up says what it checked, and both projects pass', async () => {
    const test = await execa('npm', ['test', '--', 'test/runtime/labels.test.ts', 'test/runtime/socket-bridge.docker.test.ts'], { cwd: clone, env, all: true, reject: false });
    expect(test.exitCode, test.all).toBe(0);
    const stdout = stripVTControlCharacters(test.stdout);
    for (const step of ['Docker engine', 'test base image', 'harness bundles', 'chromium', 'Debian Python']) expect(stdout).toMatch(new RegExp(`^  ${step}.*\\d s  `, 'm'));
    expect(stdout).toMatch(/Test Files\s+2 passed/);
  }, 600_000);
});
