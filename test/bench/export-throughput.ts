// Benchmark: `polar export jsonl` and `polar runs show`: rows/s and peak RSS on synthetic runs whose sessions
// carry what real ones do (30 calls, a 64 KiB agent log, a multi-file patch of a few KB), at 500 and 2,000
// sessions (8,000 with BENCH_EXPORT_8000=1: slow to write). Each export or show runs in its own process
// (`--child`), so its peak RSS (`process.resourceUsage().maxRSS`) is its own. Env: BENCH_SCALE (sessions
// multiplier, default 1), BENCH_EXPORT_DB (a file to keep the written runs in and reuse).
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { showRunAction } from '../../src/cli/commands/runs-show-action.js';
import { createStreamSink } from '../../src/export/create-stream-sink.js';
import type { ExportFormat } from '../../src/export/export-format.js';
import { exportRun } from '../../src/export/export-run.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { TrajectoryBuilderName } from '../../src/trajectory/trajectory-row.js';
import { writeSyntheticExportRun } from '../export/write-synthetic-export-run.js';
import { createRandom } from '../store/synthetic-session.js';
import { argValue } from './run-as-process.js';
import type { Benchmark } from './benchmark.js';
import { removeTempDir, trackTempDir } from './bench-cleanup.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';
import { databaseFileBytes } from './read-storage-footprint.js';
import { AGENT_LOG_BYTES, realisticAgentLog, realisticPatch } from './realistic-session-outputs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CALLS_PER_SESSION = 30;

interface ChildResult {
  /** Rows exported (sessions listed for `runs show`). */
  records: number;
  bytes: number;
  ms: number;
  /** RSS before the work started (modules loaded, store open), MiB. */
  baseRssMiB: number;
  /** Peak RSS of the process, MiB. */
  peakRssMiB: number;
  /** Highest sampled heapUsed during the work, MiB. */
  peakHeapMiB: number;
}

type Operation = { kind: 'export'; builder: TrajectoryBuilderName; format: ExportFormat; messages?: boolean } | { kind: 'show' };

export const exportThroughput: Benchmark = {
  name: 'Export and runs show: throughput and peak RSS (synthetic runs with 64 KiB agent logs and multi-file patches)',
  run: () => runExportThroughput(Number(process.env.BENCH_SCALE ?? '1'), process.env.BENCH_EXPORT_8000 === '1'),
};

/** Sessions per run: 500 and 2,000 (times scale), and 8,000 when `withLargest`. */
export function exportRunSizes(scale: number, withLargest: boolean): number[] {
  const sizes = [Math.max(4, Math.round(500 * scale)), Math.max(16, Math.round(2000 * scale))];
  if (withLargest) sizes.push(Math.max(64, Math.round(8000 * scale)));
  return sizes;
}

const OPERATIONS: { label: string; operation: Operation }[] = [
  { label: 'export polar, prefix_merging (messages, the default)', operation: { kind: 'export', builder: 'prefix_merging', format: 'polar', messages: true } },
  { label: 'export polar, prefix_merging, --no-messages', operation: { kind: 'export', builder: 'prefix_merging', format: 'polar' } },
  { label: 'export verl, per_request', operation: { kind: 'export', builder: 'per_request', format: 'verl' } },
  { label: 'runs show', operation: { kind: 'show' } },
];

export async function runExportThroughput(scale: number, withLargest: boolean): Promise<string> {
  const sizes = exportRunSizes(scale, withLargest);
  // BENCH_EXPORT_DB=<file>: write the runs there once and reuse them on the next run (the 8,000-session write is slow).
  const kept = process.env.BENCH_EXPORT_DB;
  const dir = kept === undefined ? mkdtempSync(path.join(tmpdir(), 'polar-bench-export-')) : path.dirname(path.resolve(kept));
  if (kept === undefined) trackTempDir(dir);
  try {
    const db = kept === undefined ? path.join(dir, 'polar.db') : path.resolve(kept);
    const store = openStore(db);
    const started = performance.now();
    let calls = 0;
    sizes.forEach((sessions, index) => {
      const name = `run-${sessions}`;
      if (store.runs.get(name) !== undefined) return;
      calls += writeSyntheticExportRun(store, { name, sessions, callsPerSession: CALLS_PER_SESSION, seed: index + 1 });
      addSessionOutputs(store, name, index + 1);
    });
    calls = store.stats().calls;
    store.close();
    const writeSeconds = (performance.now() - started) / 1000;

    const rows: Cell[][] = [];
    for (const { label, operation } of OPERATIONS) {
      let baseline: ChildResult | undefined;
      for (const sessions of sizes) {
        const result = runChild(db, `run-${sessions}`, sessions, operation);
        baseline ??= result;
        const seconds = result.ms / 1000;
        rows.push([
          label,
          sessions,
          result.records,
          formatNumber(result.bytes / 1e6, 2),
          formatNumber(seconds, 2),
          formatNumber(result.records / seconds, 0),
          formatNumber(result.peakRssMiB, 0),
          `${formatNumber(result.peakRssMiB / baseline.peakRssMiB, 2)}x`,
          formatNumber(result.baseRssMiB, 0),
          formatNumber(result.peakHeapMiB, 0),
        ]);
      }
    }
    const header =
      `Store: ${sizes.join(' + ')} sessions, ${calls} calls (${CALLS_PER_SESSION} per session), each session with a ${AGENT_LOG_BYTES / 1024} KiB agent log and a multi-file patch (2-4 files, typically 4 KB), ` +
      `written in ${formatNumber(writeSeconds, 1)} s, ${formatNumber(databaseFileBytes(db) / 1e6, 0)} MB. Output goes to /dev/null (export: the CLI's file stream with back-pressure; runs show: its printed table).`;
    const table = markdownTable(['operation', 'sessions', 'rows', 'MB out', 's', 'rows/s', 'peak RSS MiB', `peak RSS vs ${sizes[0]}`, 'RSS before MiB', 'peak heap MiB'], rows);
    return [
      header,
      '',
      table,
      '',
      `Rows are exported rows (runs show: sessions listed). Peak RSS is the child process's maxRSS; a ratio near 1.00x from ${sizes[0]} to ${sizes.at(-1)} sessions means memory does not grow with the run, a ratio that tracks the session count means the operation holds every session (agent log and patch included) at once.` +
        (withLargest ? '' : ' The 8,000-session run is skipped (set BENCH_EXPORT_8000=1).'),
    ].join('\n');
  } finally {
    if (kept === undefined) removeTempDir(dir);
  }
}

/** Gives every session of the run a 64 KiB agent log and a realistic patch (rewards stay as written). */
function addSessionOutputs(store: Store, runName: string, seed: number): void {
  const run = store.runs.get(runName);
  if (run === undefined) throw new Error(`synthetic run ${runName} was not written`);
  const random = createRandom(1000 + seed);
  for (const session of store.runs.sessions(run.id)) {
    store.runs.finishSession(session.id, { status: 'completed', patch: realisticPatch(random), agentLog: realisticAgentLog(random), exitCode: 0 });
  }
}

function runChild(db: string, run: string, sessions: number, operation: Operation): ChildResult {
  const extra = operation.kind === 'export' ? ['--builder', operation.builder, '--format', operation.format, ...(operation.messages ? ['--messages'] : [])] : ['--sessions', String(sessions)];
  const args = ['--import', 'tsx', import.meta.filename, '--child', operation.kind, '--db', db, '--run', run, ...extra];
  // The child prints its result on stderr (its stdout is the printed output of `runs show`, sent to /dev/null).
  const child = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.status !== 0) throw new Error(`${operation.kind} child failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const line = child.stderr.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as ChildResult;
}

async function childMain(argv: readonly string[]): Promise<void> {
  const mib = (bytes: number) => bytes / 2 ** 20;
  const db = argValue(argv, '--db')!;
  const run = argValue(argv, '--run')!;
  const kind = argValue(argv, '--child');
  const store = kind === 'export' ? openStore(db, { readonly: true, sequential: true }) : undefined;
  const baseRssMiB = mib(process.memoryUsage().rss);
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const started = performance.now();
  let records = 0;
  let bytes = 0;
  if (store !== undefined) {
    const sink = createStreamSink(createWriteStream('/dev/null'));
    const summary = await exportRun(store, { run, builder: argValue(argv, '--builder') as TrajectoryBuilderName, format: argValue(argv, '--format') as ExportFormat, messages: argv.includes('--messages') }, sink.write);
    await sink.close();
    store.close();
    records = summary.records;
    bytes = summary.bytes;
  } else {
    // The command's own action: opens the store, loads the run, prints its tables to stdout (/dev/null here).
    const write = process.stdout.write.bind(process.stdout) as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean;
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      return write(chunk, ...rest);
    }) as typeof process.stdout.write;
    showRunAction(run, { db });
    records = Number(argValue(argv, '--sessions') ?? '0');
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  const result: ChildResult = { records, bytes, ms, baseRssMiB, peakRssMiB: process.resourceUsage().maxRSS / 1024, peakHeapMiB: mib(peakHeap) };
  process.stderr.write(`${JSON.stringify(result)}\n`);
}

if (process.argv.includes('--child') && process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  await childMain(process.argv);
}
