// `polar export jsonl` through commander: file output (atomic), stdout output, option validation.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerExportCommand } from '../../src/cli/commands/export.js';
import { MissingRewardError, NotFoundError } from '../../src/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { useTempDirs } from '../store/temp-dir.js';
import { constructedSession } from './constructed-session.js';
import { parseJsonl } from './read-exported-rows.js';
import { seedRun } from './seed-run.js';

const tempDir = useTempDirs();

function seededDb(): { dir: string; db: string } {
  const dir = tempDir();
  const db = path.join(dir, 'polar.db');
  const store = openStore(db);
  seedRun(store, 'run-1', [
    { instanceId: 'a', status: 'completed', reward: 1, simulated: true, patch: 'diff', calls: constructedSession },
    { instanceId: 'a', status: 'completed', reward: null, simulated: true, calls: constructedSession.slice(0, 1) },
  ]);
  store.close();
  return { dir, db };
}

async function runCli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  // Like a real stream, call the write callback (the sink's final flush waits for it).
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stdout += String(chunk);
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    if (callback) queueMicrotask(callback);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  const program = new Command('polar').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  registerExportCommand(program);
  try {
    await program.parseAsync(['export', 'jsonl', ...args], { from: 'user' });
  } finally {
    vi.restoreAllMocks();
  }
  return { stdout, stderr };
}

afterEach(() => vi.restoreAllMocks());

/** Files in the folder other than the database (and its WAL files). */
function outputFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => !name.startsWith('polar.db')).sort();
}

describe('polar export jsonl', () => {
  it('writes the file and prints a one-line summary on stdout', async () => {
    const { dir, db } = seededDb();
    const out = path.join(dir, 'rows.jsonl');
    const { stdout, stderr } = await runCli(['--run', 'run-1', '--db', db, '-o', out]);
    const records = parseJsonl(readFileSync(out, 'utf8')) as { session_id: number; builder: string; simulated: boolean }[];
    expect(records).toHaveLength(4);
    expect(records.every((record) => record.builder === 'prefix_merging' && record.simulated)).toBe(true);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(stdout).toContain('exported 4 record(s)');
    expect(stdout).toContain('from 1/2 session(s) of run run-1');
    expect(stdout).toContain('skipped 1 no-reward');
    expect(stdout).toContain('1 session(s) never graded: export them with --advantage none');
    expect(stdout).toContain('1 simulated session(s)');
    expect(stderr).toBe('');
    expect(outputFiles(dir)).toEqual(['rows.jsonl']);
  });

  it('with -o - writes records to stdout and the summary to stderr', async () => {
    const { db } = seededDb();
    const { stdout, stderr } = await runCli(['--run', 'run-1', '--db', db, '-o', '-', '--builder', 'per_request', '--format', 'verl', '--advantage', 'none']);
    // --advantage none also exports the session that was never graded, with reward and advantage null.
    const records = parseJsonl(stdout) as { uid: string; reward_score: number | null; advantage: number | null }[];
    expect(records).toHaveLength(9);
    expect(records.every((record) => record.uid === 'run-1/a')).toBe(true);
    expect(records.map((record) => record.advantage)).toEqual([...Array(8).fill(0), null]);
    expect(records.at(-1)!.reward_score).toBeNull();
    expect(stderr).toContain('format verl, builder per_request, advantage none');
    expect(stderr).toContain('from 2/2 session(s)');
  });

  it('leaves no file behind when the export fails', async () => {
    const { dir, db } = seededDb();
    await expect(runCli(['--run', 'missing', '--db', db, '-o', path.join(dir, 'rows.jsonl')])).rejects.toThrow(NotFoundError);
    expect(outputFiles(dir)).toEqual([]);
  });

  it('refuses grpo over a run none of whose sessions was graded, naming --advantage none, and exports it with none', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'polar.db');
    const store = openStore(db);
    seedRun(store, 'no-eval', [
      { instanceId: 'a', status: 'completed', reward: null, calls: constructedSession },
      { instanceId: 'a', status: 'agent_error', reward: null, calls: constructedSession.slice(0, 2) },
    ]);
    store.close();
    const out = path.join(dir, 'rows.jsonl');
    await expect(runCli(['--run', 'no-eval', '--db', db, '-o', out])).rejects.toThrow(/never graded.*--advantage none exports them with reward null/);
    await expect(runCli(['--run', 'no-eval', '--db', db, '-o', out])).rejects.toBeInstanceOf(MissingRewardError);
    expect(outputFiles(dir)).toEqual([]);
    await expect(runCli(['--run', 'no-eval', '--db', db, '-o', out, '--advantage', 'none', '--format', 'openrlhf'])).rejects.toThrow(/openrlhf records need one/);
    const { stdout } = await runCli(['--run', 'no-eval', '--db', db, '-o', out, '--advantage', 'none']);
    expect(stdout).toContain('from 2/2 session(s)');
    const records = parseJsonl(readFileSync(out, 'utf8')) as { reward: number | null; advantage: number | null; status: string }[];
    expect(records.map((record) => [record.reward, record.advantage])).toEqual(records.map(() => [null, null]));
    expect(new Set(records.map((record) => record.status))).toEqual(new Set(['completed', 'agent_error']));
  });

  it.each([
    [['--format', 'parquet']],
    [['--builder', 'whole_session']],
    [['--advantage', 'ppo']],
    [['--sample', '-1']],
    [['--min-reward', 'high']],
  ])('rejects %j', async (extra) => {
    const { dir, db } = seededDb();
    const out = path.join(dir, 'rows.jsonl');
    await expect(runCli(['--run', 'run-1', '--db', db, '-o', out, ...extra])).rejects.toSatisfy((error) => error instanceof CommanderError || (error as Error).name === 'UsageError');
    expect(existsSync(out)).toBe(false);
  });
});
