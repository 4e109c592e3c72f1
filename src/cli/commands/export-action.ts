// What `polar export jsonl` does (loaded only when it runs; flags are in export.ts).
import path from 'node:path';
import { resolveDbPath } from '../../config/paths.js';
import { createStreamSink } from '../../export/create-stream-sink.js';
import { exportRun, type ExportRunOptions, type ExportSummary } from '../../export/export-run.js';
import { writeThroughPartial } from '../../export/write-through-partial.js';
import { openStore } from '../../store/open-store.js';
import { printError, printLine } from '../output.js';
import type { ExportFlags } from './export.js';

export async function exportJsonlAction(flags: ExportFlags): Promise<void> {
  const options: ExportRunOptions = {
    run: flags.run,
    builder: flags.builder,
    format: flags.format,
    advantage: flags.advantage,
    std: flags.std,
    messages: flags.messages,
    minReward: flags.minReward,
    sample: flags.sample,
    lineageWeights: flags.lineageWeights,
    ...(flags.modelName === undefined ? {} : { modelName: flags.modelName }),
    ...(flags.allowMixed ? { allowMixed: true } : {}),
  };
  const store = openStore(resolveDbPath(flags.db), { readonly: true, sequential: true });
  try {
    if (flags.output === '-') {
      const sink = createStreamSink(process.stdout);
      const summary = await exportRun(store, options, sink.write);
      await sink.close({ end: false });
      printError(describeSummary(summary, 'stdout'));
      return;
    }
    const summary = await exportToFile(store, options, path.resolve(flags.output));
    printLine(describeSummary(summary, flags.output));
  } finally {
    store.close();
  }
}

/** Writes next to the target and renames at the end, so a failed export never leaves a file that looks whole. */
function exportToFile(store: Parameters<typeof exportRun>[0], options: ExportRunOptions, file: string): Promise<ExportSummary> {
  return writeThroughPartial(file, async (stream) => {
    const sink = createStreamSink(stream);
    const summary = await exportRun(store, options, sink.write);
    await sink.close();
    return summary;
  });
}

function describeSummary(summary: ExportSummary, target: string): string {
  const skipped = Object.entries(summary.sessions.skipped).map(([reason, count]) => `${count} ${reason}`);
  const parts = [
    `exported ${summary.records} record(s), ${formatBytes(summary.bytes)}, from ${summary.sessions.exported}/${summary.sessions.total} session(s) of run ${summary.run} to ${target}`,
    `format ${summary.format}, builder ${summary.builder}, advantage ${summary.advantage}`,
    skipped.length > 0 ? `skipped ${skipped.join(', ')}` : 'none skipped',
  ];
  if (summary.sessions.simulated > 0) parts.push(`${summary.sessions.simulated} simulated session(s) (records say simulated: true)`);
  const ungraded = summary.sessions.skipped['no-reward'] ?? 0;
  if (ungraded > 0 && summary.format !== 'sft') parts.push(`${ungraded} session(s) never graded: export them with --advantage none (reward null), or grade the run with polar eval swebench --run ${summary.run}`);
  return parts.join('; ');
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}
