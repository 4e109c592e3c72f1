// `polar harness install`: npm package at the pinned version plus a copy of node, built in a temp dir, then renamed into place.
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { resolveCacheDir } from '../config/paths.js';
import { CancelledError } from '../errors.js';
import { harnessBundleDir, harnessBundlePaths, type InstallMarker } from './harness-cache.js';
import { HarnessInstallError } from './harness-errors.js';
import { isHarnessInstalled } from './is-harness-installed.js';
import { loadHarness } from './load-harness-manifest.js';
import { outputTail } from './output-tail.js';
import { verifyHarnessBundle } from './verify-harness-bundle.js';

export type HarnessInstallStep = 'npm-install' | 'copy-node' | 'verify';

export type HarnessInstallEvent =
  | { type: 'already-installed'; name: string; dir: string; reportedVersion: string }
  | { type: 'step'; name: string; step: HarnessInstallStep; detail: string }
  | { type: 'installed'; name: string; dir: string; reportedVersion: string; durationMs: number };

export interface InstallHarnessOptions {
  /** polar's cache dir; defaults to resolveCacheDir() (POLAR_HOME, XDG_CACHE_HOME/polar, ~/.cache/polar). */
  cacheDir?: string;
  onProgress?: (event: HarnessInstallEvent) => void;
  /** Reinstall even when a complete bundle is present. */
  force?: boolean;
  signal?: AbortSignal;
  /** Where harness folders live (tests); defaults to the repo's harnesses/. */
  harnessesDir?: string;
  /** The npm command (tests substitute a fake); defaults to ["npm"]. */
  npmCommand?: readonly string[];
  /** The node binary copied into the bundle; defaults to this process's. */
  nodeSource?: string;
}

export interface InstallHarnessResult {
  name: string;
  dir: string;
  reportedVersion: string;
  alreadyInstalled: boolean;
}

/**
 * Installs one harness bundle into <cacheDir>/harnesses/<name>-<version>/. Idempotent (a marker
 * with the version is written last) and atomic (built in a temp dir next to it, then renamed).
 * Contract: throws HarnessInstallError with the tail of the failing command's output; leaves no temp dir.
 */
export async function installHarness(name: string, options: InstallHarnessOptions = {}): Promise<InstallHarnessResult> {
  const started = Date.now();
  const harness = loadHarness(name, options.harnessesDir);
  const cacheDir = options.cacheDir ?? resolveCacheDir();
  const dir = harnessBundleDir(cacheDir, harness);
  const progress = options.onProgress ?? (() => undefined);
  const state = isHarnessInstalled(harness, cacheDir);
  if (state.installed && options.force !== true) {
    progress({ type: 'already-installed', name, dir, reportedVersion: state.marker.reportedVersion });
    return { name, dir, reportedVersion: state.marker.reportedVersion, alreadyInstalled: true };
  }
  await mkdir(path.dirname(dir), { recursive: true });
  const temp = await mkdtemp(path.join(path.dirname(dir), `.tmp-${harness.name}-${harness.version}-`));
  try {
    const paths = harnessBundlePaths(temp, harness);
    const spec = `${harness.package}@${harness.version}`;
    progress({ type: 'step', name, step: 'npm-install', detail: spec });
    const [npm = 'npm', ...npmArgs] = options.npmCommand ?? ['npm'];
    const npmResult = await execa(npm, [...npmArgs, 'install', '--prefix', paths.packageDir, '--no-audit', '--no-fund', '--omit=dev', spec], {
      env: { npm_config_update_notifier: 'false' },
      stdin: 'ignore',
      all: true,
      reject: false,
      ...(options.signal ? { cancelSignal: options.signal } : {}),
    });
    if (npmResult.failed) {
      throw new HarnessInstallError(
        `npm install ${spec} failed (${npmResult.shortMessage ?? `exit code ${npmResult.exitCode}`})`,
        outputTail(npmResult.all),
        `Check that the npm registry is reachable (npm ping) and retry: polar harness install ${name}`,
      );
    }
    if (!existsSync(paths.bin)) {
      throw new HarnessInstallError(
        `npm installed ${spec} but its executable ${path.relative(paths.packageDir, paths.bin)} is missing`,
        outputTail(npmResult.all),
        `The package layout differs from harnesses/${name}/harness.json ("bin"); fix the manifest.`,
      );
    }
    const nodeSource = options.nodeSource ?? process.execPath;
    progress({ type: 'step', name, step: 'copy-node', detail: nodeSource });
    await mkdir(path.dirname(paths.node), { recursive: true });
    await copyFile(nodeSource, paths.node);
    await chmod(paths.node, 0o755);
    progress({ type: 'step', name, step: 'verify', detail: `${path.basename(paths.bin)} --version` });
    const reportedVersion = await verifyHarnessBundle(harness, temp, options.signal ? { signal: options.signal } : {});
    const marker: InstallMarker = { name: harness.name, package: harness.package, version: harness.version, reportedVersion, installedAt: new Date().toISOString() };
    await writeFile(paths.marker, `${JSON.stringify(marker, null, 2)}\n`);
    // mkdtemp makes the folder 0700; the bundle is mounted into containers that may run as any user.
    await chmod(temp, 0o755);
    await moveIntoPlace(temp, dir);
    progress({ type: 'installed', name, dir, reportedVersion, durationMs: Date.now() - started });
    return { name, dir, reportedVersion, alreadyInstalled: false };
  } catch (error) {
    if (options.signal?.aborted) {
      throw new CancelledError(`installing harness ${name} was cancelled`, undefined, { cause: error });
    }
    throw error;
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Replaces `dir` by `temp`; an old or half-written `dir` is moved aside first and then deleted. */
async function moveIntoPlace(temp: string, dir: string): Promise<void> {
  if (existsSync(dir)) {
    const old = `${temp}-old`;
    await rename(dir, old);
    try {
      await rename(temp, dir);
    } finally {
      await rm(old, { recursive: true, force: true });
    }
    return;
  }
  await rename(temp, dir);
}
