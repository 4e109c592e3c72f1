// Committed data survives a writer that never closes its Store, including one killed with SIGKILL.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import { openStore } from '../../src/store/open-store.js';
import { expectSameRecord, storedToRecord } from './expect-same-record.js';
import { createSyntheticSession } from './synthetic-session.js';
import { useTempDirs } from './temp-dir.js';

const tempDir = useTempDirs();

/** Runs the writer fixture, waits for its report line, then kills it with SIGKILL. */
async function writeAndKill(path: string, turns: number): Promise<{ sessionId: number; key: string }> {
  const fixture = join(import.meta.dirname, 'fixtures', 'write-calls-then-hang.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, path, String(turns)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const report = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.trim());
    });
    child.on('exit', (code) => reject(new Error(`writer exited early with ${String(code)}: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return JSON.parse(report) as { sessionId: number; key: string };
}

describe('crash safety', () => {
  it('a second Store reads what an unclosed Store committed', () => {
    const path = join(tempDir(), 'polar.db');
    const writer = openStore(path);
    const session = writer.sessions.create();
    const records = createSyntheticSession(session.id, 5);
    for (const record of records) writer.calls.insert(record);
    const reader = openStore(path, { readonly: true });
    const calls = reader.calls.listBySession(session.id, { withRaw: true });
    expect(calls).toHaveLength(records.length);
    calls.forEach((call, i) => expectSameRecord(storedToRecord(call), records[i] as CallRecord, `call ${i}`));
    reader.close();
    writer.close();
  });

  it('every call committed before a SIGKILL is readable afterwards, byte for byte', async () => {
    const path = join(tempDir(), 'polar.db');
    const turns = 8;
    const { sessionId, key } = await writeAndKill(path, turns);
    expect(existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0).toBe(true);
    const store = openStore(path);
    expect(store.sessions.findByKey(key)).toMatchObject({ id: sessionId, label: 'killed' });
    const records = createSyntheticSession(sessionId, turns);
    const calls = store.calls.listBySession(sessionId, { withRaw: true });
    expect(calls).toHaveLength(turns);
    calls.forEach((call, i) => expectSameRecord(storedToRecord(call), records[i] as CallRecord, `call ${i}`));
    store.calls.insert({ ...(records[0] as CallRecord), sessionId });
    expect(store.calls.listBySession(sessionId).at(-1)?.seq).toBe(turns);
    store.close();
  });
});
