// A failed export leaves nothing behind: not the target, not the partial file, even when the write fails before
// the partial file's asynchronous open has finished (the race left `rows.jsonl.partial-<pid>` behind under load).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeThroughPartial } from '../../src/export/write-through-partial.js';

const dir = mkdtempSync(path.join(tmpdir(), 'polar-partial-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeThroughPartial', () => {
  it('renames the partial file to the target once the write resolved', async () => {
    const file = path.join(dir, 'ok.jsonl');
    const result = await writeThroughPartial(file, async (stream) => {
      await new Promise<void>((resolve, reject) => stream.end('{"a":1}\n', (error?: Error | null) => (error ? reject(error) : resolve())));
      return 7;
    });
    expect(result).toBe(7);
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(readdirSync(dir).filter((name) => name.includes('.partial-'))).toEqual([]);
  });

  it('leaves no file when the write fails at once, every time out of 200', async () => {
    const sub = mkdtempSync(path.join(dir, 'fail-'));
    for (let i = 0; i < 200; i++) {
      await expect(writeThroughPartial(path.join(sub, `rows-${i}.jsonl`), () => Promise.reject(new Error('no reward')))).rejects.toThrow('no reward');
    }
    // Give any open still pending a chance to land: a leftover would show now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readdirSync(sub)).toEqual([]);
  });

  it('fails with the open error when the folder does not exist, leaving nothing', async () => {
    await expect(writeThroughPartial(path.join(dir, 'missing', 'rows.jsonl'), () => Promise.resolve(1))).rejects.toThrow(/ENOENT/);
  });
});
