// Host key checking against an OpenSSH known_hosts file: plain and hashed (`|1|salt|hash`) host names,
// `[host]:port` for other ports, `*`/`?` patterns and `!` negations, `@revoked` lines. An unknown or a changed
// key is refused with a typed error (never trusted on first use). `@cert-authority` lines are not supported.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HostKeyChangedError, HostKeyUnknownError } from './ssh-errors.js';

interface KnownHostLine {
  patterns: string[];
  keyType: string;
  key: string;
  revoked: boolean;
}

/** The key types known_hosts lists for the host (to offer only those algorithms), in file order. */
export function knownKeyTypes(file: string, host: string, port: number): string[] {
  return [...new Set(readKnownHosts(file).filter((line) => !line.revoked && matchesHost(line.patterns, hostEntryName(host, port))).map((line) => line.keyType))];
}

/**
 * Checks the raw key blob a host presented. Returns normally when known_hosts lists exactly this key for
 * the host; throws HostKeyChangedError when it lists another key (or revoked this one), HostKeyUnknownError
 * when it lists none.
 */
export function verifyHostKey(file: string, host: string, port: number, blob: Buffer): void {
  const name = hostEntryName(host, port);
  const keyType = keyTypeOf(blob);
  const key = blob.toString('base64');
  const fingerprint = `${keyType} SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  const lines = readKnownHosts(file).filter((line) => matchesHost(line.patterns, name));
  if (lines.some((line) => line.revoked && line.key === key)) throw new HostKeyChangedError(name, `${fingerprint}, revoked`, file);
  if (lines.some((line) => !line.revoked && line.keyType === keyType && line.key === key)) return;
  if (lines.some((line) => !line.revoked)) throw new HostKeyChangedError(name, fingerprint, file);
  throw new HostKeyUnknownError(name, fingerprint, file, `ssh-keyscan ${port === 22 ? '' : `-p ${port} `}${host}`);
}

/** How known_hosts names a host: `host`, or `[host]:port` for any port but 22. */
export function hostEntryName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function readKnownHosts(file: string): KnownHostLine[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const lines: KnownHostLine[] = [];
  for (const raw of text.split('\n')) {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const fields = trimmed.split(/\s+/);
    let revoked = false;
    if (fields[0]?.startsWith('@')) {
      const marker = fields.shift();
      if (marker === '@cert-authority') continue;
      revoked = marker === '@revoked';
    }
    const [patterns, keyType, key] = fields;
    if (patterns === undefined || keyType === undefined || key === undefined) continue;
    lines.push({ patterns: patterns.split(','), keyType, key, revoked });
  }
  return lines;
}

/** OpenSSH's rule: some positive pattern matches and no negated one does. */
function matchesHost(patterns: readonly string[], name: string): boolean {
  let matched = false;
  for (const pattern of patterns) {
    if (pattern.startsWith('|1|')) {
      const [, , salt, hash] = pattern.split('|');
      if (salt !== undefined && hash !== undefined && createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash) matched = true;
      continue;
    }
    const negated = pattern.startsWith('!');
    const glob = new RegExp(`^${(negated ? pattern.slice(1) : pattern).replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
    if (glob.test(name)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

/** The key type named at the start of an SSH public key blob (uint32 length + name). */
function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const length = blob.readUInt32BE(0);
  return blob.subarray(4, 4 + length).toString('latin1');
}
