// `polar eval swebench` input checks that need no Docker: flag combinations, unreadable files, unknown runs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { registerEvalCommand } from '../../../src/cli/commands/eval.js';
import { DataError, NotFoundError, UsageError } from '../../../src/errors.js';

const dir = mkdtempSync(path.join(tmpdir(), 'polar-eval-cli-'));
const db = path.join(dir, 'polar.db');

function runEval(args: string[]): Promise<unknown> {
  const program = new Command('polar').exitOverride();
  registerEvalCommand(program);
  return program.parseAsync(['eval', 'swebench', ...args], { from: 'user' });
}

describe('polar eval swebench: bad input', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each<[string, string[], new (...args: never[]) => Error, RegExp]>([
    ['no input', [], UsageError, /give --dataset <file> and --predictions <file>, or --run <run>/],
    ['a dataset without predictions', ['--dataset', 'd.jsonl'], UsageError, /give --dataset/],
    ['--run with file flags', ['--run', 'r', '--dataset', 'd.jsonl', '--report', 's.json'], UsageError, /--run cannot be combined with --dataset, --report/],
    ['--reevaluate without --run', ['--dataset', 'd', '--predictions', 'p', '--reevaluate'], UsageError, /--reevaluate applies only to --run/],
    ['concurrency 0', ['--dataset', 'd', '--predictions', 'p', '--concurrency', '0'], UsageError, /--concurrency must be an integer >= 1/],
    ['a missing dataset file', ['--dataset', path.join(dir, 'none.jsonl'), '--predictions', 'gold'], DataError, /Cannot read dataset file/],
    ['an unknown run', ['--run', 'no-such-run', '--db', db], NotFoundError, /no run "no-such-run"/],
  ])('%s', async (_name, args, type, message) => {
    const run = runEval(args);
    await expect(run).rejects.toBeInstanceOf(type);
    await expect(run).rejects.toThrow(message);
  });
});
