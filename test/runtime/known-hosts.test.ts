// Host key checking against known_hosts: exact key, unknown host, changed key, hashed names, ports, patterns.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostEntryName, knownKeyTypes, verifyHostKey } from '../../src/runtime/ssh/known-hosts.js';
import { HostKeyChangedError, HostKeyUnknownError } from '../../src/runtime/ssh/ssh-errors.js';

const dir = mkdtempSync(path.join(tmpdir(), 'polar-known-hosts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An SSH public key blob of `type` with random key bytes. */
function blob(type: string): Buffer {
  const name = Buffer.from(type);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(name.length);
  return Buffer.concat([length, name, randomBytes(36)]);
}
const write = (lines: string[]): string => {
  const file = path.join(dir, `kh-${Math.random()}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};
const line = (host: string, key: Buffer, marker = ''): string => `${marker}${marker ? ' ' : ''}${host} ${key.subarray(4, 4 + key.readUInt32BE(0)).toString()} ${key.toString('base64')}`;

describe('verifyHostKey', () => {
  const ed = blob('ssh-ed25519');
  const other = blob('ssh-ed25519');

  it('accepts the listed key, by plain, pattern or hashed name, on port 22 or another', () => {
    expect(() => verifyHostKey(write([line('10.0.0.2', ed)]), '10.0.0.2', 22, ed)).not.toThrow();
    expect(() => verifyHostKey(write([line('[10.0.0.2]:2222', ed)]), '10.0.0.2', 2222, ed)).not.toThrow();
    expect(() => verifyHostKey(write([line('*.lab,!bad.lab', ed)]), 'gpu.lab', 22, ed)).not.toThrow();
    const salt = randomBytes(20);
    const hashed = `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update('gpu.lab').digest('base64')}`;
    expect(() => verifyHostKey(write([line(hashed, ed)]), 'gpu.lab', 22, ed)).not.toThrow();
  });

  it('refuses a host it does not list (and a negated one), with the keyscan command in the hint', () => {
    const file = write([line('10.0.0.9', ed), line('*.lab,!bad.lab', ed)]);
    expect(() => verifyHostKey(file, '10.0.0.2', 22, ed)).toThrow(HostKeyUnknownError);
    expect(() => verifyHostKey(file, 'bad.lab', 22, ed)).toThrow(HostKeyUnknownError);
    try {
      verifyHostKey(file, '10.0.0.2', 2222, ed);
    } catch (error) {
      expect((error as HostKeyUnknownError).hint).toContain('ssh-keyscan -p 2222 10.0.0.2');
      expect((error as Error).message).toMatch(/\[10\.0\.0\.2\]:2222 is not in .*ssh-ed25519 SHA256:/);
    }
    expect(() => verifyHostKey(path.join(dir, 'missing'), '10.0.0.2', 22, ed)).toThrow(HostKeyUnknownError);
  });

  it('refuses a changed key, and a revoked one', () => {
    expect(() => verifyHostKey(write([line('10.0.0.2', other)]), '10.0.0.2', 22, ed)).toThrow(HostKeyChangedError);
    expect(() => verifyHostKey(write([line('10.0.0.2', ed), line('10.0.0.2', ed, '@revoked')]), '10.0.0.2', 22, ed)).toThrow(HostKeyChangedError);
  });

  it('names the key types listed for a host (the algorithms to offer)', () => {
    const rsa = blob('ssh-rsa');
    const file = write([line('a', ed), line('a', rsa), line('b', other)]);
    expect(knownKeyTypes(file, 'a', 22)).toEqual(['ssh-ed25519', 'ssh-rsa']);
    expect(hostEntryName('a', 22)).toBe('a');
    expect(hostEntryName('a', 2)).toBe('[a]:2');
  });
});
