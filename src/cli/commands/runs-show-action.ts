// What `polar runs show` does (loaded only when it runs; flags are in runs.ts).
import { resolveDbPath } from '../../config/paths.js';
import { NotFoundError } from '../../errors.js';
import { openStore } from '../../store/open-store.js';
import { formatMergeStatistics } from '../../export/format-merge-statistics.js';
import { computeMergeStatistics } from '../../export/merge-statistics.js';
import { diffManifests } from '../../rollout/run-manifest.js';
import type { Store } from '../../store/open-store.js';
import type { RunRow } from '../../store/run-repository.js';
import type { RunGroupSummary, RunSessionSummary } from '../../store/run-session-queries.js';
import { mapIterable, printStreamedTable, type Cell } from '../print-streamed-table.js';
import { summarizeManifest } from '../summarize-manifest.js';
import { printJson, printLine, printTable } from '../output.js';
import { storedEngineUsage } from '../stored-engine-usage.js';
import { formatEngineUsage } from '../../ui/format-engine.js';

/**
 * Prints a run. Sessions are read a page at a time (light summaries, no agent logs) and groups come from SQL
 * aggregates, so memory does not grow with the run; `--json` reads each session's patch as it prints it.
 */
export function showRunAction(name: string, flags: { db?: string; json?: boolean }): void {
  const store = openStore(resolveDbPath(flags.db), { readonly: true, sequential: true });
  try {
    const run = store.runs.get(name);
    if (run === undefined) throw new NotFoundError(`no run "${name}" in ${store.path}`, 'List them with: polar runs list');
    if (flags.json) {
      printRunJson(store, run);
      return;
    }
    const counts = store.runs.counts(run.id);
    printLine(`run ${run.name} (id ${run.id}): ${run.status}${run.statusReason ? ` (${run.statusReason})` : ''}, harness ${run.harness}, upstream ${run.upstream}, ${counts.total} session(s)`);
    printLine(`dataset ${run.datasetPath}; data ${store.path}`);
    for (const line of summarizeManifest(run.manifest)) printLine(line);
    const stats = run.stats ?? {};
    if (typeof stats.wallMs === 'number') {
      const busy = typeof stats.modelBusyFraction === 'number' ? `${(stats.modelBusyFraction * 100).toFixed(1)}%` : '-';
      const inFlight = typeof stats.meanInFlight === 'number' ? stats.meanInFlight.toFixed(2) : '-';
      printLine(`wall ${(stats.wallMs / 1000).toFixed(1)} s, model busy ${busy}, mean model calls in flight ${inFlight}`);
    }
    const engine = storedEngineUsage(stats);
    if (engine !== undefined) printLine(formatEngineUsage(engine));
    printLine('');
    printLine('groups (one per task; infra_error sessions are not part of a group):');
    printTable(['instance', 'samples', 'in group', 'completed', 'resolved', 'mean reward'], store.runs.groupSummaries(run.id).map(groupRow));
    printLine('');
    printStreamedTable(
      ['session', 'instance', 'sample', 'stage', 'status', 'reason', 'tries', 'calls', 'ok', 'sampled tok', 'agent s', 'patch', 'reward', 'key'],
      () => mapIterable(store.runs.iterateSessionSummaries(run.id), sessionCells),
    );
    const merge = formatMergeStatistics(computeMergeStatistics(store, run.id));
    printLine('');
    for (const line of merge) printLine(line);
  } finally {
    store.close();
  }
}

/** Prints the fields that differ between two runs' manifests, one `field: a -> b` line each. */
export function diffRunsAction(a: string, b: string, flags: { db?: string; json?: boolean }): void {
  const store = openStore(resolveDbPath(flags.db), { readonly: true });
  try {
    const [left, right] = [a, b].map((name) => {
      const run = store.runs.get(name);
      if (run === undefined) throw new NotFoundError(`no run "${name}" in ${store.path}`, 'List them with: polar runs list');
      return run;
    }) as [RunRow, RunRow];
    const differences = diffManifests(left.manifest, right.manifest);
    if (flags.json) {
      printJson(differences);
      return;
    }
    if (differences.length === 0) printLine(`runs ${left.name} and ${right.name} have the same manifest`);
    for (const difference of differences) printLine(`${difference.field}: ${formatValue(difference.a)} -> ${formatValue(difference.b)}`);
  } finally {
    store.close();
  }
}

function formatValue(value: unknown): string {
  return value === undefined ? '(absent)' : JSON.stringify(value);
}

function sessionCells(session: RunSessionSummary): Cell[] {
  return [
    session.id,
    session.instanceId,
    session.sampleIndex,
    session.stage,
    session.status,
    session.statusReason,
    session.attempts,
    session.callCount,
    session.okCallCount,
    session.sampledTokens,
    session.timings.agent === undefined ? null : (session.timings.agent / 1000).toFixed(1),
    session.patchLines === null ? null : `${session.patchLines} lines`,
    session.reward,
    session.key,
  ];
}

/** `{ run, manifest, sessions }` as printJson would print it, one session (patch included) at a time. */
function printRunJson(store: Store, run: RunRow): void {
  const { manifest, ...rest } = run;
  const indent = (value: unknown, depth: number) => JSON.stringify(value, null, 2).replaceAll('\n', `\n${' '.repeat(depth)}`);
  printLine('{');
  printLine(`  "run": ${indent(rest, 2)},`);
  printLine(`  "manifest": ${indent(manifest, 2)},`);
  // One session behind, so each line carries its separating comma: one patch in memory at a time.
  let previous: string | undefined;
  for (const session of store.runs.iterateSessionSummaries(run.id)) {
    if (previous === undefined) printLine('  "sessions": [');
    else printLine(`${previous},`);
    previous = `    ${indent(sessionToJson(session, store.runs.sessionPatch(session.id) ?? null), 4)}`;
  }
  if (previous === undefined) printLine('  "sessions": []');
  else {
    printLine(previous);
    printLine('  ]');
  }
  printLine('}');
}

function sessionToJson(session: RunSessionSummary, patch: string | null): Record<string, unknown> {
  return {
    id: session.id,
    key: session.key,
    instance_id: session.instanceId,
    sample_index: session.sampleIndex,
    stage: session.stage,
    status: session.status,
    status_reason: session.statusReason,
    status_detail: session.statusDetail,
    attempts: session.attempts,
    exit_code: session.exitCode,
    calls: session.callCount,
    ok_calls: session.okCallCount,
    prompt_tokens: session.promptTokens,
    sampled_tokens: session.sampledTokens,
    timings_ms: session.timings,
    reward: session.reward,
    evaluation: session.evaluation,
    patch,
  };
}

function groupRow(group: RunGroupSummary): Cell[] {
  return [group.instanceId, group.samples, group.inGroup, group.completed, group.resolved, group.meanReward === null ? null : group.meanReward.toFixed(2)];
}
