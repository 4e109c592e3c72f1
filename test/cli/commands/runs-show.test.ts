// `polar runs show` reads sessions a page at a time; its table, groups and --json keep what the full rows gave.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import { writeSyntheticExportRun } from '../../export/write-synthetic-export-run.js';

const POLAR = path.resolve(import.meta.dirname, '../../../bin/polar.js');

describe('polar runs show', () => {
  let dir: string;
  let db: string;
  let expected: { id: number; patch: string | null; reward: number | null; instanceId: string; status: string | null }[];

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'polar-runs-show-'));
    db = path.join(dir, 'polar.db');
    const store = openStore(db);
    try {
      writeSyntheticExportRun(store, { name: 'r', sessions: 300, callsPerSession: 2, samples: 3 });
      const run = store.runs.get('r')!;
      const sessions = store.runs.sessions(run.id);
      store.runs.finishSession(sessions[0]!.id, { status: 'infra_error', patch: 'diff --git a/a b/a\n+x\n', agentLog: 'log '.repeat(16_384) });
      expected = store.runs.sessions(run.id).map(({ id, patch, reward, instanceId, status }) => ({ id, patch, reward, instanceId, status }));
    } finally {
      store.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints every session (more than one page) and per-task groups', async () => {
    const { stdout } = await execa(POLAR, ['runs', 'show', 'r', '--db', db]);
    expect(stdout).toMatch(/^run r \(id \d+\): finished, harness pi, upstream synthetic, 300 session\(s\)$/m);
    const lines = stdout.split('\n');
    const header = lines.findIndex((line) => line.startsWith('session '));
    const rows = lines.slice(header + 1, header + 1 + expected.length);
    expect(rows.map((line) => Number(line.split(/\s+/)[0]))).toEqual(expected.map((session) => session.id));
    expect(rows[0]).toMatch(/\binfra_error\b.*\b2 lines\b/);
    // The groups table: task 0 lost its first sample to infra_error (in group 2 of 3).
    const groups = lines.slice(lines.findIndex((line) => line.startsWith('instance ')) + 1);
    const [first] = groups;
    const rewards = expected.slice(1, 3).map((session) => session.reward!);
    expect(first?.split(/\s+/)).toEqual(['synthetic__task-0', '3', '2', '2', String(rewards.filter((r) => r === 1).length), ((rewards[0]! + rewards[1]!) / 2).toFixed(2)]);
    expect(stdout).toMatch(/^rows\/session: per_request .* of 600 calls in 300 session\(s\)\)$/m);
  });

  it('--json is one JSON document with every session and its patch', async () => {
    const { stdout } = await execa(POLAR, ['runs', 'show', 'r', '--db', db, '--json']);
    const parsed = JSON.parse(stdout) as { run: { name: string }; manifest: unknown; sessions: { id: number; patch: string | null; reward: number | null; instance_id: string; status: string | null }[] };
    expect(parsed.run.name).toBe('r');
    expect(parsed).toHaveProperty('manifest', null);
    expect(parsed.sessions.map(({ id, patch, reward, instance_id, status }) => ({ id, patch, reward, instanceId: instance_id, status }))).toEqual(expected);
    expect(JSON.stringify(parsed, null, 2)).toBe(stdout);
  });
});
