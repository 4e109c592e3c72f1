// Where harness bundles live: <cacheDir>/harnesses/<name>-<version>/ with package/ (npm prefix) and node/bin/node.
import path from 'node:path';
import { HarnessManifestError } from './harness-errors.js';
import { resolveBinPath, type HarnessManifest } from './harness-manifest.js';

/** The file written last by an install; its presence (with the right version) means "installed". */
export const INSTALL_MARKER = 'polar-harness.json';

/** What the install marker holds. */
export interface InstallMarker {
  name: string;
  package: string;
  version: string;
  /** The first line the CLI printed for `--version`. */
  reportedVersion: string;
  /** ISO time of the install. */
  installedAt: string;
}

/** The folder of one bundle on the host. */
export function harnessBundleDir(cacheDir: string, manifest: Pick<HarnessManifest, 'name' | 'version'>): string {
  return path.join(cacheDir, 'harnesses', `${manifest.name}-${manifest.version}`);
}

/** The paths inside a bundle, relative to wherever it is visible (host dir or a container mount). */
export interface BundlePaths {
  /** The bundle root. */
  root: string;
  /** The npm prefix (`npm install --prefix`). */
  packageDir: string;
  /** The CLI executable (native binary or JS entry). */
  bin: string;
  /** The bundled node binary. */
  node: string;
  /** The install marker. */
  marker: string;
}

/**
 * Paths of a bundle rooted at `root`. POSIX joins, so the same function serves the host path and
 * the read-only mount inside a Linux container. Throws when the harness ships no binary for `arch`.
 */
export function harnessBundlePaths(root: string, manifest: Pick<HarnessManifest, 'name' | 'bin'>, arch: string = process.arch): BundlePaths {
  const bin = resolveBinPath(manifest, arch);
  if (bin === undefined) {
    throw new HarnessManifestError(`harness ${manifest.name} has no executable for CPU architecture ${arch}`);
  }
  const packageDir = path.posix.join(root, 'package');
  return {
    root,
    packageDir,
    bin: path.posix.join(packageDir, bin),
    node: path.posix.join(root, 'node', 'bin', 'node'),
    marker: path.posix.join(root, INSTALL_MARKER),
  };
}
