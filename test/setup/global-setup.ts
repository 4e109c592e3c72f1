// Global set-up of the docker project: makes the README's `npm test` pass on a fresh machine by installing,
// once, what the Docker and end-to-end tests need and is missing: a Docker engine, the offline test base
// image, every harness bundle in harnesses/, Debian's chromium (browser tests), Debian's Python with
// venv, pip, setuptools and mypy (the tests of python/), and Debian's openssh-server and docker-registry (the
// multi-host tests' rig of hosts: test/helpers/start-host-rig.ts). One line per step, with
// its time. When a step fails: in CI the run fails; elsewhere the reason is printed and the tests that need
// the missing part skip (no engine, no image) or fail with their own message.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { resolveCacheDir } from '../../src/config/paths.js';
import { installHarness } from '../../src/harness/install-harness.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { listHarnesses } from '../../src/harness/load-harness-manifest.js';
import { ensureDebianPython } from '../python/debian-python.js';
import { isCi } from './is-ci.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const TEST_IMAGE = process.env.POLAR_TEST_IMAGE ?? 'polar-test/base:bookworm';
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** What a step reports: a short result, or `skip` with the reason the step could not be done here. */
type StepResult = string | { skip: string };

export default async function setup(_project: TestProject): Promise<void> {
  if (process.env.POLAR_TEST_SETUP === 'skip') return;
  write('polar test set-up (docker project): what the Docker, end-to-end and browser tests need');
  const docker = await step('Docker engine', ensureDockerEngine);
  if (docker) {
    await step('test base image', ensureTestImage);
    await step('harness bundles', ensureHarnessBundles);
  }
  await step('chromium (browser tests)', ensureChromium);
  await step('sshd + registry (hosts)', ensureHostRigPackages);
  await step('Debian Python (python/)', async () => ensureDebianPython());
}

async function ensureDockerEngine(): Promise<StepResult> {
  const version = await run('docker', ['version', '--format', '{{.Server.Version}}']);
  if (version.code === 0) return `answers (engine ${version.output.trim()})`;
  const ensured = await run('bash', [path.join(ROOT, '.ci/ensure-docker.sh')]);
  if (ensured.code === 0) return 'started (.ci/ensure-docker.sh)';
  return { skip: `no Docker engine answers and .ci/ensure-docker.sh could not start one:\n${tail(ensured.output)}` };
}

async function ensureTestImage(): Promise<StepResult> {
  if ((await run('docker', ['image', 'inspect', TEST_IMAGE])).code === 0) return `${TEST_IMAGE} present`;
  const built = await run('bash', [path.join(ROOT, '.ci/build-test-image.sh')], { POLAR_TEST_IMAGE: TEST_IMAGE });
  if (built.code === 0) return `${TEST_IMAGE} built (.ci/build-test-image.sh)`;
  return { skip: `could not build ${TEST_IMAGE}:\n${tail(built.output)}` };
}

/** Every folder of harnesses/ with a manifest (a harness added there is installed without changes here). */
async function ensureHarnessBundles(): Promise<StepResult> {
  const cacheDir = resolveCacheDir();
  const harnesses = listHarnesses();
  const missing = harnesses.filter((harness) => !isHarnessInstalled(harness, cacheDir).installed);
  const failed: string[] = [];
  for (const harness of missing) {
    const started = Date.now();
    try {
      const installed = await installHarness(harness.name, { cacheDir });
      write(`    ${harness.name}: installed ${installed.reportedVersion} in ${seconds(Date.now() - started)}`);
    } catch (error) {
      failed.push(`${harness.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failed.length > 0) return { skip: `could not install ${failed.join('; ')}` };
  const names = harnesses.map((harness) => harness.name).join(', ');
  return missing.length === 0 ? `all ${harnesses.length} installed (${names}) in ${cacheDir}` : `installed ${missing.map((h) => h.name).join(', ')}; all of ${names} ready`;
}

async function ensureChromium(): Promise<StepResult> {
  if (existsSync(CHROMIUM_PATH)) return `${CHROMIUM_PATH} present`;
  const installed = await aptInstall(['chromium']);
  if (installed.code === 0 && existsSync(CHROMIUM_PATH)) return `installed Debian's chromium at ${CHROMIUM_PATH}`;
  return { skip: `apt-get install chromium failed:\n${tail(installed.output)}` };
}

/** The multi-host rig's real sshd and registry (test/helpers/start-host-rig.ts); their services are never started. */
async function ensureHostRigPackages(): Promise<StepResult> {
  const wanted = [
    ['openssh-server', '/usr/sbin/sshd'],
    ['docker-registry', '/usr/bin/docker-registry'],
  ] as const;
  const missing = wanted.filter(([, file]) => !existsSync(file)).map(([pkg]) => pkg);
  if (missing.length === 0) return `${wanted.map(([, file]) => file).join(', ')} present`;
  const installed = await aptInstall(missing);
  const still = wanted.filter(([, file]) => !existsSync(file)).map(([pkg]) => pkg);
  if (installed.code === 0 && still.length === 0) return `installed Debian's ${missing.join(', ')}`;
  return { skip: `apt-get install ${missing.join(' ')} failed:\n${tail(installed.output)}` };
}

/**
 * apt-get install from Debian's mirror (an update first when the lists are stale). POLICYRCD points
 * invoke-rc.d at a policy that forbids starting services: installing sshd must not start one on port 22.
 */
async function aptInstall(packages: readonly string[]): Promise<{ code: number; output: string }> {
  const policy = path.join(ROOT, '.ci/no-services-policy-rc.sh');
  const env = { DEBIAN_FRONTEND: 'noninteractive', POLICYRCD: policy };
  const args = ['install', '-y', '--no-install-recommends', ...packages];
  let installed = await run('apt-get', args, env);
  if (installed.code !== 0) {
    await run('apt-get', ['update'], env);
    installed = await run('apt-get', args, env);
  }
  return installed;
}

/** Runs one step and prints its line. Returns whether it succeeded; throws in CI when it did not. */
async function step(label: string, work: () => Promise<StepResult>): Promise<boolean> {
  const started = Date.now();
  let result: StepResult;
  try {
    result = await work();
  } catch (error) {
    result = { skip: error instanceof Error ? error.message : String(error) };
  }
  const time = seconds(Date.now() - started).padStart(7);
  if (typeof result === 'string') {
    write(`  ${label.padEnd(26)}${time}  ${result}`);
    return true;
  }
  if (isCi()) throw new Error(`test set-up: ${label} failed in CI: ${result.skip}`);
  write(`  ${label.padEnd(26)}${time}  NOT READY: ${result.skip}`);
  write('  (outside CI the tests that need it skip with this reason, or fail with their own message)');
  return false;
}

/** Runs a command with its output collected (shown only when a step fails). */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolve({ code: 127, output: `${output}${error.message}` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

function tail(output: string, lines = 15): string {
  return output.trimEnd().split('\n').slice(-lines).map((line) => `      | ${line}`).join('\n');
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function write(line: string): void {
  process.stdout.write(`${line}\n`);
}
