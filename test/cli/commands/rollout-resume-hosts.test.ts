// `polar rollout --resume` of a run started on SSH hosts goes back to those hosts (the --hosts file read again,
// the --host URLs as given) and says so; --hosts/--host on the resume name others. Hosts that do not answer
// here (nothing listens on 127.0.0.1:1–3), so admission refuses each by name before anything runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';

const POLAR = path.resolve(import.meta.dirname, '../../../bin/polar.js');

describe('polar rollout --resume on the run’s hosts', () => {
  let dir: string;
  let db: string;
  let hostsFile: string;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'polar-resume-hosts-'));
    db = path.join(dir, 'polar.db');
    hostsFile = path.join(dir, 'hosts.yaml');
    writeFileSync(hostsFile, 'hosts:\n  - name: from-file\n    ssh: ssh://root@127.0.0.1:2\n');
    const store = openStore(db);
    try {
      const config = { harness: 'pi', datasetPath: 'tasks.jsonl', upstream: 'sim:oracle', samples: 1, timeoutSeconds: 60 };
      store.runs.create({ name: 'on-hosts', harness: 'pi', datasetPath: 'tasks.jsonl', upstream: 'sim:oracle', samples: 1, config: { ...config, hostFlags: { hosts: hostsFile, host: ['ssh://root@127.0.0.1:1'] } }, ownerPid: 1, ownerHost: 'gone' });
    } finally {
      store.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reopens the hosts the run was started with, and says so', async () => {
    const result = await execa(POLAR, ['rollout', '--resume', 'on-hosts', '--db', db], { reject: false, env: { HOME: dir, SSH_AUTH_SOCK: '' } });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(`resuming on the run's hosts: ${hostsFile}, ssh://root@127.0.0.1:1`);
    expect(result.stderr).toMatch(/host from-file: NOT admitted/);
    expect(result.stderr).toMatch(/host 127\.0\.0\.1:1: NOT admitted/);
  });

  it('takes the hosts a resume names instead', async () => {
    const result = await execa(POLAR, ['rollout', '--resume', 'on-hosts', '--db', db, '--host', 'ssh://root@127.0.0.1:3'], { reject: false, env: { HOME: dir, SSH_AUTH_SOCK: '' } });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).not.toContain('resuming on the run');
    expect(result.stderr).toMatch(/host 127\.0\.0\.1:3: NOT admitted/);
    expect(result.stderr).not.toMatch(/from-file|127\.0\.0\.1:1\b/);
  });
});
