// Debian's Python for the tests of python/ (the polar_rollout package): what is needed, installing it with
// apt-get when missing (the test set-up), a venv with the package installed the way python/README.md says,
// and running unittest suites.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { isCi } from '../setup/is-ci.js';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const PYTHON_DIR = path.join(REPO, 'python');
/** Debian's interpreter (not whatever `python3` is first on PATH). */
export const DEBIAN_PYTHON = '/usr/bin/python3';
export const DEBIAN_MYPY = '/usr/bin/mypy';
/** Debian packages the Python tests need; python3-pip brings python3-wheel, which --no-build-isolation needs. */
export const PYTHON_PACKAGES = ['python3', 'python3-venv', 'python3-pip', 'python3-setuptools'];

/** Why Debian's Python cannot run the tests here (undefined when it can): interpreter, venv, pip, setuptools, wheel. */
export function pythonMissing(): string | undefined {
  if (!existsSync(DEBIAN_PYTHON)) return `${DEBIAN_PYTHON} is missing (apt-get install ${PYTHON_PACKAGES.join(' ')})`;
  try {
    // setuptools first: imported after something that loaded distutils, its distutils shim refuses to load
    execFileSync(DEBIAN_PYTHON, ['-c', 'import setuptools, wheel, pip, venv, ensurepip'], { stdio: 'pipe' });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim().split('\n').at(-1) ?? String(error);
    return `Debian's Python lacks a module the tests need (${stderr}; apt-get install ${PYTHON_PACKAGES.join(' ')})`;
  }
  return undefined;
}

/** Installs the missing packages (and mypy, for the type check) with apt-get; returns what it did. Throws when it cannot. */
export function ensureDebianPython(): string {
  const wanted = [...PYTHON_PACKAGES, 'mypy'];
  const missing = wanted.filter((name) => !isInstalled(name));
  if (missing.length === 0 && pythonMissing() === undefined) return `${DEBIAN_PYTHON} ${pythonVersion()} with venv, pip, setuptools, wheel; mypy present`;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const args = ['install', '-y', '--no-install-recommends', ...missing];
  try {
    execFileSync('apt-get', args, { stdio: 'pipe', env, timeout: 600_000 });
  } catch {
    execFileSync('apt-get', ['update'], { stdio: 'pipe', env, timeout: 600_000 });
    execFileSync('apt-get', args, { stdio: 'pipe', env, timeout: 600_000 });
  }
  const still = pythonMissing();
  if (still !== undefined) throw new Error(still);
  return `installed ${missing.join(', ')}; ${DEBIAN_PYTHON} ${pythonVersion()}`;
}

/**
 * For a test file: the reason to skip when Debian's Python is not usable (undefined when it is). In CI a
 * missing Python fails instead (the set-up installs it there).
 */
export function pythonSkipReason(needs: { venv?: boolean; mypy?: boolean } = {}): string | undefined {
  let reason = needs.venv === true ? pythonMissing() : existsSync(DEBIAN_PYTHON) ? undefined : `${DEBIAN_PYTHON} is missing (apt-get install python3)`;
  if (reason === undefined && needs.mypy === true && !existsSync(DEBIAN_MYPY)) reason = `${DEBIAN_MYPY} is missing (apt-get install mypy)`;
  if (reason === undefined) return undefined;
  if (isCi()) throw new Error(`Python tests cannot run in CI: ${reason}`);
  console.warn(`[skip] Python tests: ${reason}`);
  return reason;
}

/**
 * A fresh venv under `dir` with polar_rollout installed from python/, offline, exactly as python/README.md
 * says: `python3 -m venv --system-site-packages` (so the venv sees Debian's setuptools and wheel) and
 * `pip install --no-index --no-build-isolation`. Returns the venv's python.
 */
export async function createClientVenv(dir: string): Promise<string> {
  const venv = path.join(dir, 'venv');
  await run(DEBIAN_PYTHON, ['-m', 'venv', '--system-site-packages', venv]);
  const python = path.join(venv, 'bin', 'python');
  // pip builds in the source tree (build/, *.egg-info): build from a copy of the package's sources alone, so
  // the checkout stays clean, parallel builds do not meet, and a stale build/ of a checkout is not installed.
  const source = path.join(dir, 'python-src');
  for (const entry of ['pyproject.toml', 'README.md', 'polar_rollout']) {
    cpSync(path.join(PYTHON_DIR, entry), path.join(source, entry), { recursive: true, filter: (from) => !from.includes('__pycache__') });
  }
  await run(python, ['-m', 'pip', 'install', '--no-index', '--no-build-isolation', '--disable-pip-version-check', '--no-cache-dir', source]);
  return python;
}

export interface UnittestResult {
  code: number;
  output: string;
  /** Tests run, from unittest's `Ran N tests` line. */
  ran: number;
  skipped: number;
}

/** Runs `python -m unittest discover -v` over `folder` (its own top-level directory) and sums it up. */
export async function runUnittest(python: string, folder: string, env: Record<string, string> = {}): Promise<UnittestResult> {
  const { code, output } = await run(python, ['-m', 'unittest', 'discover', '-v', '-s', folder, '-t', folder], env, false);
  const ran = Number(/^Ran (\d+) tests? in/m.exec(output)?.[1] ?? '0');
  const skipped = Number(/skipped=(\d+)/.exec(output)?.[1] ?? '0');
  return { code, output, ran, skipped };
}

/** Runs a command; rejects with its output when it fails (unless `check` is false). */
export function run(command: string, args: string[], env: Record<string, string> = {}, check = true): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, cwd: REPO }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      if (code !== 0 && check) reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-4000)}`));
      else resolve({ code, output });
    });
  });
}

function isInstalled(name: string): boolean {
  try {
    return execFileSync('dpkg-query', ['-W', '-f', '${Status}', name], { stdio: 'pipe' }).toString().includes('install ok installed');
  } catch {
    return false;
  }
}

function pythonVersion(): string {
  return execFileSync(DEBIAN_PYTHON, ['--version']).toString().trim().replace(/^Python /, '');
}
