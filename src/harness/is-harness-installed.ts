// Whether a harness bundle is complete in the cache: marker with the pinned version, executable and node present.
import { existsSync, readFileSync } from 'node:fs';
import { harnessBundleDir, harnessBundlePaths, type InstallMarker } from './harness-cache.js';
import type { HarnessManifest } from './harness-manifest.js';

export type HarnessInstallState =
  | { installed: true; dir: string; marker: InstallMarker }
  | { installed: false; dir: string; reason: string };

export function isHarnessInstalled(manifest: HarnessManifest, cacheDir: string, arch: string = process.arch): HarnessInstallState {
  const dir = harnessBundleDir(cacheDir, manifest);
  const paths = harnessBundlePaths(dir, manifest, arch);
  if (!existsSync(paths.marker)) return { installed: false, dir, reason: existsSync(dir) ? 'incomplete install (no marker)' : 'not installed' };
  let marker: Partial<InstallMarker>;
  try {
    marker = JSON.parse(readFileSync(paths.marker, 'utf8')) as Partial<InstallMarker>;
  } catch {
    return { installed: false, dir, reason: 'unreadable install marker' };
  }
  if (marker.name !== manifest.name || marker.package !== manifest.package || marker.version !== manifest.version) {
    return { installed: false, dir, reason: `marker is for ${marker.package ?? '?'}@${marker.version ?? '?'}` };
  }
  if (!existsSync(paths.bin)) return { installed: false, dir, reason: `executable missing: ${paths.bin}` };
  if (manifest.usesNode && !existsSync(paths.node)) return { installed: false, dir, reason: `node missing: ${paths.node}` };
  return { installed: true, dir, marker: marker as InstallMarker };
}
