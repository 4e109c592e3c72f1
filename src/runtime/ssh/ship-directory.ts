// Ships a local folder (a harness bundle: the npm package and its node binary) to an SSH host once, verified
// by hash: the tree hash covers every file's content and mode and every symlink's target, computed by the
// same shell pipeline here and on the host. The folder lands in `<parent>/<name>-<hash prefix>`; it counts as
// there only when the host's own hash of it matches, so a half-copied or altered folder is shipped again.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { ContainerError } from '../runtime-errors.js';
import type { SshConnection } from './ssh-connection.js';

/**
 * The tree hash of the current folder: sha256 over the sorted list of `mode path sha256` per file and
 * `path -> target` per symlink (GNU find, sort, sha256sum: on the host and here alike).
 */
export const TREE_HASH_SCRIPT =
  "export LC_ALL=C; { find . -type f -printf '%m %p\\n' | sort; find . -type f -print0 | sort -z | xargs -0r sha256sum; find . -type l -printf '%p -> %l\\n' | sort; } | sha256sum | cut -c1-64";

export interface ShippedDirectory {
  /** The folder on the host. */
  remoteDir: string;
  hash: string;
  /** False when the host already held a verified copy. */
  shipped: boolean;
  bytes: number;
}

const localHashes = new Map<string, { mtimeMs: number; hash: Promise<string> }>();

/** The tree hash of a local folder (memoised while the folder's own mtime stays the same). */
export async function localTreeHash(dir: string): Promise<string> {
  const { mtimeMs } = await stat(dir);
  const known = localHashes.get(dir);
  if (known !== undefined && known.mtimeMs === mtimeMs) return known.hash;
  const hash = runLocal(TREE_HASH_SCRIPT, dir).then((output) => output.trim());
  localHashes.set(dir, { mtimeMs, hash });
  hash.catch(() => localHashes.delete(dir));
  return hash;
}

/** Makes `localDir` present on the host under `remoteParent` (relative to the login's home unless absolute). */
export async function shipDirectory(connection: SshConnection, localDir: string, remoteParent: string): Promise<ShippedDirectory> {
  const hash = await localTreeHash(localDir);
  const remoteDir = path.posix.join(remoteParent, `${path.basename(localDir)}-${hash.slice(0, 16)}`);
  const quoted = shellQuote(remoteDir);
  const existing = await connection.run(`test -d ${quoted} && cd ${quoted} && { ${TREE_HASH_SCRIPT}; }`);
  if (existing.code === 0 && existing.stdout.toString().trim() === hash) return { remoteDir, hash, shipped: false, bytes: 0 };
  const staging = `${remoteDir}.partial-${process.pid}`;
  const stagingQuoted = shellQuote(staging);
  const tar = spawn('tar', ['-C', localDir, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let bytes = 0;
  // Counted on the way through (a 'data' listener on tar's stdout would start the flow before the pipe).
  const counted = tar.stdout.pipe(new Transform({ transform: (chunk: Buffer, _encoding, done) => done(null, ((bytes += chunk.length), chunk)) }));
  let tarError = '';
  tar.stderr.on('data', (chunk: Buffer) => (tarError += chunk.toString()));
  const unpacked = await connection.run(`rm -rf ${stagingQuoted} && mkdir -p ${stagingQuoted} && tar -xf - -C ${stagingQuoted} && cd ${stagingQuoted} && { ${TREE_HASH_SCRIPT}; }`, { input: counted });
  const tarCode = await new Promise<number>((resolve) => (tar.exitCode !== null ? resolve(tar.exitCode) : tar.once('close', (code) => resolve(code ?? 1))));
  const remoteHash = unpacked.stdout.toString().trim();
  if (tarCode !== 0 || unpacked.code !== 0 || remoteHash !== hash) {
    await connection.run(`rm -rf ${stagingQuoted}`).catch(() => undefined);
    const why = tarCode !== 0 ? `tar here failed: ${tarError.trim()}` : unpacked.code !== 0 ? `unpacking there failed: ${unpacked.stderr.trim()}` : `the copy's hash ${remoteHash.slice(0, 16)}… differs from ${hash.slice(0, 16)}…`;
    throw new ContainerError(`Could not ship ${localDir} to ${connection.target.name}:${remoteDir}: ${why}.`, 'Check free disk space on the host and that tar, find and sha256sum (GNU) are installed there.');
  }
  const moved = await connection.run(`rm -rf ${quoted} && mv ${stagingQuoted} ${quoted}`);
  if (moved.code !== 0) throw new ContainerError(`Could not put the shipped copy in place at ${connection.target.name}:${remoteDir}: ${moved.stderr.trim()}`);
  return { remoteDir, hash, shipped: true, bytes };
}

/** Single-quotes a path for the host's shell (a leading `~/` stays unquoted so the shell expands it). */
export function shellQuote(value: string): string {
  if (value.startsWith('~/')) return `~/${shellQuote(value.slice(2))}`;
  return `'${value.replace(/'/g, "'\\''")}'`;
}

function runLocal(script: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new ContainerError(`Could not hash ${cwd}: ${err.trim() || `exit code ${code}`}`))));
  });
}
