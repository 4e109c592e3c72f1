// Benchmark: `polar export jsonl` throughput (rows/s, MB/s) and peak memory on large synthetic runs.
// Each export runs in its own process (`--child`), so its peak RSS is its own. Env: BENCH_SCALE (sessions
// multiplier, default 1: 500 and 2,000 sessions of 30 calls).
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createStreamSink } from '../../src/export/create-stream-sink.js';
import type { ExportFormat } from '../../src/export/export-format.js';
import { exportRun } from '../../src/export/export-run.js';
import { openStore } from '../../src/store/open-store.js';
import type { TrajectoryBuilderName } from '../../src/trajectory/trajectory-row.js';
import { argValue } from './run-as-process.js';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { formatNumber, markdownTable } from './markdown-table.js';
import { databaseFileBytes } from './read-storage-footprint.js';
import { writeSyntheticExportRun } from '../export/write-synthetic-export-run.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CALLS_PER_SESSION = 30;

interface ChildResult {
  records: number;
  bytes: number;
  ms: number;
  /** RSS before the export started (modules loaded, store open), MiB. */
  baseRssMiB: number;
  /** Peak RSS of the process, MiB. */
  peakRssMiB: number;
  /** Highest sampled heapUsed during the export, MiB. */
  peakHeapMiB: number;
}

interface Case {
  run: string;
  sessions: number;
  builder: TrajectoryBuilderName;
  format: ExportFormat;
  messages: boolean;
}

export const exportThroughput: Benchmark = {
  name: 'Export throughput and memory (synthetic runs, 30 calls per session)',
  run: () => runExportThroughput(Number(process.env.BENCH_SCALE ?? '1')),
};

export async function runExportThroughput(scale: number): Promise<string> {
  const small = Math.max(4, Math.round(500 * scale));
  const large = Math.max(8, Math.round(2000 * scale));
  const dir = mkdtempSync(path.join(tmpdir(), 'polar-bench-export-'));
  trackTempDir(dir);
  try {
    const db = path.join(dir, 'polar.db');
    const store = openStore(db);
    const started = performance.now();
    const calls = writeSyntheticExportRun(store, { name: 'small', sessions: small, callsPerSession: CALLS_PER_SESSION, seed: 1 }) + writeSyntheticExportRun(store, { name: 'large', sessions: large, callsPerSession: CALLS_PER_SESSION, seed: 2 });
    store.close();
    const writeSeconds = (performance.now() - started) / 1000;

    const cases: Case[] = [
      { run: 'small', sessions: small, builder: 'prefix_merging', format: 'polar', messages: false },
      { run: 'large', sessions: large, builder: 'prefix_merging', format: 'polar', messages: false },
      { run: 'large', sessions: large, builder: 'prefix_merging', format: 'polar', messages: true },
      { run: 'large', sessions: large, builder: 'prefix_merging', format: 'verl', messages: false },
      { run: 'large', sessions: large, builder: 'prefix_merging', format: 'openrlhf', messages: false },
      { run: 'small', sessions: small, builder: 'per_request', format: 'polar', messages: false },
      { run: 'large', sessions: large, builder: 'per_request', format: 'verl', messages: false },
    ];
    const rows = cases.map((item) => {
      const result = runChild(db, item);
      const mb = result.bytes / 1e6;
      const seconds = result.ms / 1000;
      return [
        `${item.run} (${item.sessions} sessions)`,
        item.builder,
        `${item.format}${item.messages ? ' + messages' : ''}`,
        result.records,
        formatNumber(mb, 1),
        formatNumber(seconds, 1),
        formatNumber(result.records / seconds, 0),
        formatNumber(mb / seconds, 1),
        formatNumber(result.peakRssMiB, 0),
        formatNumber(result.baseRssMiB, 0),
        formatNumber(result.peakHeapMiB, 0),
      ];
    });
    const header = `Store: ${calls} calls written in ${formatNumber(writeSeconds, 1)} s, ${formatNumber(databaseFileBytes(db) / 1e6, 0)} MB. Output goes to /dev/null through the CLI's write path (file stream with back-pressure).`;
    const table = markdownTable(['run', 'builder', 'format', 'rows', 'MB', 's', 'rows/s', 'MB/s', 'peak RSS MiB', 'RSS before MiB', 'peak heap MiB'], rows);
    return `${header}\n\n${table}\n\nPeak RSS that stays flat from the small to the large run shows the export holds one session at a time.`;
  } finally {
    removeTempDir(dir);
  }
}

function runChild(db: string, item: Case): ChildResult {
  const args = ['--import', 'tsx', import.meta.filename, '--child', '--db', db, '--run', item.run, '--builder', item.builder, '--format', item.format, '--messages', String(item.messages)];
  const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 });
  if (child.status !== 0) throw new Error(`export child failed (${child.status}): ${child.stderr.slice(-2000)}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as ChildResult;
}

async function childMain(argv: readonly string[]): Promise<void> {
  const store = openStore(argValue(argv, '--db')!, { readonly: true });
  const mib = (bytes: number) => bytes / 2 ** 20;
  const baseRssMiB = mib(process.memoryUsage().rss);
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const sink = createStreamSink(createWriteStream('/dev/null'));
  const started = performance.now();
  const summary = await exportRun(
    store,
    {
      run: argValue(argv, '--run')!,
      builder: argValue(argv, '--builder') as TrajectoryBuilderName,
      format: argValue(argv, '--format') as ExportFormat,
      messages: argValue(argv, '--messages') === 'true',
    },
    sink.write,
  );
  await sink.close();
  const ms = performance.now() - started;
  clearInterval(sampler);
  store.close();
  const result: ChildResult = {
    records: summary.records,
    bytes: summary.bytes,
    ms,
    baseRssMiB,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    peakHeapMiB: mib(peakHeap),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (process.argv.includes('--child') && process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  await childMain(process.argv);
}
