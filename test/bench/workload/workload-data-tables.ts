// The measured inputs of the workload as tables: tool times per repository and kind, Docker phases per harness,
// and each harness's prompt structure (used by print-workload.ts and the README).
import { TRACE_HARNESSES } from '../../fixtures/traces/trace-fixture.js';
import { percentile } from '../latency-stats.js';
import { markdownTable, type Cell } from '../markdown-table.js';
import type { WorkloadData } from './sample-session.js';
import { TOOL_KINDS, TOOL_REPOS } from './tool-times.js';

/** Largest value (a loop: spreading a large array into Math.max overflows the stack). */
const maxOf = (values: readonly number[]): number => values.reduce((max, value) => (value > max ? value : max), Number.NEGATIVE_INFINITY);

const s = (ms: number): string => (Number.isFinite(ms) ? (ms / 1000).toFixed(ms < 1000 ? 3 : ms < 10_000 ? 2 : 1) : 'n/a');

export function toolTimesTable(data: WorkloadData): string {
  const rows: Cell[][] = [];
  for (const repo of TOOL_REPOS) {
    for (const kind of TOOL_KINDS) {
      const samples = data.toolTimes.repos[repo].filter((sample) => sample.kind === kind);
      if (samples.length === 0) continue;
      const ms = samples.map((sample) => sample.ms);
      const tokens = samples.map((sample) => sample.outputTokens);
      rows.push([repo, kind, samples.length, s(percentile(ms, 50)), s(percentile(ms, 90)), s(percentile(ms, 99)), s(maxOf(ms)), samples.filter((sample) => sample.timedOut).length, Math.round(percentile(tokens, 50)), Math.round(percentile(tokens, 90)), maxOf(tokens)]);
    }
  }
  return markdownTable(['repo', 'kind', 'n', 's p50', 'p90', 'p99', 'max', 'timed out', 'output tok p50', 'p90', 'max'], rows);
}

export function phaseTimesTable(data: WorkloadData): string {
  const rows: Cell[][] = TRACE_HARNESSES.map((harness) => {
    const sessions = data.phaseTimes.harnesses[harness];
    const init = sessions.map((row) => row.create + row.prepare);
    const post = sessions.map((row) => row.extract + row.evaluate + row.teardown);
    const agent = sessions.map((row) => row.agent);
    return [harness, sessions.length, s(percentile(init, 50)), s(maxOf(init)), s(percentile(agent, 50)), s(maxOf(agent)), s(percentile(post, 50)), s(maxOf(post))];
  });
  return markdownTable(['harness', 'sessions', 'init s p50', 'max', 'agent (2-call oracle) s p50', 'max', 'post s p50', 'max'], rows);
}

export function harnessProfilesTable(data: WorkloadData): string {
  const rows: Cell[][] = TRACE_HARNESSES.map((harness) => {
    const p = data.profiles[harness];
    const rewrites = p.rewrites.map((r) => `call ${r.call}: +${r.insertedTokens} at ${r.at}`).join('; ') || 'none';
    return [harness, p.firstPromptTokens, p.taskStartsAt, p.resendsOutput ? 'yes' : 'no (answer re-rendered)', p.droppedOutputTokensPerTurn, p.wrapTokensPerToolResult, rewrites, p.sideCalls];
  });
  return markdownTable(['harness', 'first prompt tok (example task)', 'shared by every session', 'output resent as prefix', 'output tok not reused / call', 'wrap tok / tool result', 'prompt rewrites (reminders)', 'side calls'], rows);
}
