// The workload a benchmark ran, as tables: per harness, turns, output and prompt sizes, prefix reuse, tool time,
// init and post; and the assumed parameters it ran with (so a reader can see what was assumed, not measured).
import { TRACE_HARNESSES } from '../../fixtures/traces/trace-fixture.js';
import { percentile } from '../latency-stats.js';
import { markdownTable, type Cell } from '../markdown-table.js';
import type { WorkloadOptions } from './sample-session.js';
import type { SessionPlan } from './session-plan.js';

/** Largest value (a loop: spreading a large array into Math.max overflows the stack). */
const maxOf = (values: readonly number[]): number => values.reduce((max, value) => (value > max ? value : max), Number.NEGATIVE_INFINITY);

const round = (value: number): number => (Number.isFinite(value) ? Math.round(value) : Number.NaN);
const seconds = (ms: number): string => (Number.isFinite(ms) ? (ms / 1000).toFixed(ms < 10_000 ? 2 : 1) : 'n/a');

/** Numbers behind one harness's row of the summary. */
export function workloadStats(plans: readonly SessionPlan[]) {
  const turns = plans.map((plan) => plan.turns.length);
  const calls = plans.flatMap((plan) => plan.turns);
  const tools = calls.filter((turn) => turn.toolKind !== null).map((turn) => turn.toolMs);
  const lastPrompts = plans.map((plan) => plan.turns[plan.turns.length - 1]?.promptTokens ?? 0);
  const prompt = calls.reduce((sum, turn) => sum + turn.promptTokens, 0);
  const fresh = calls.reduce((sum, turn) => sum + turn.newTokens, 0);
  return {
    sessions: plans.length,
    turns: { p50: percentile(turns, 50), p90: percentile(turns, 90), max: maxOf(turns) },
    output: { p50: percentile(calls.map((turn) => turn.outputTokens), 50), p90: percentile(calls.map((turn) => turn.outputTokens), 90) },
    toolMs: { p50: percentile(tools, 50), p90: percentile(tools, 90), p99: percentile(tools, 99), max: maxOf(tools) },
    lastPrompt: { p50: percentile(lastPrompts, 50), p90: percentile(lastPrompts, 90), max: maxOf(lastPrompts) },
    newShare: prompt === 0 ? 0 : fresh / prompt,
    endedByContext: plans.filter((plan) => plan.endedBy === 'context').length / Math.max(1, plans.length),
    initMs: percentile(plans.map((plan) => plan.initMs), 50),
    postMs: { p50: percentile(plans.map((plan) => plan.postMs), 50), p90: percentile(plans.map((plan) => plan.postMs), 90) },
  };
}

/** One row per harness (and `all`): the table the GPU benchmark prints under its results. */
export function summarizeWorkload(plans: readonly SessionPlan[]): string {
  const groups = [...TRACE_HARNESSES.map((harness) => [harness, plans.filter((plan) => plan.harness === harness)] as const), ['all', plans] as const];
  const rows: Cell[][] = groups
    .filter(([, group]) => group.length > 0)
    .map(([label, group]) => {
      const s = workloadStats(group);
      return [
        label, s.sessions, round(s.turns.p50), round(s.turns.p90), s.turns.max, round(s.output.p50), round(s.output.p90),
        seconds(s.toolMs.p50), seconds(s.toolMs.p90), seconds(s.toolMs.p99), seconds(s.toolMs.max),
        round(s.lastPrompt.p50), round(s.lastPrompt.p90), `${(100 * s.newShare).toFixed(1)}%`, `${(100 * s.endedByContext).toFixed(0)}%`,
        seconds(s.initMs), seconds(s.postMs.p50), seconds(s.postMs.p90),
      ];
    });
  return markdownTable(
    ['harness', 'sessions', 'turns p50', 'p90', 'max', 'output tok p50', 'p90', 'tool s p50', 'p90', 'p99', 'max', 'last prompt tok p50', 'p90', 'new / prompt tok', 'ended at context', 'init s p50', 'post s p50', 'p90'],
    rows,
  );
}

/** The assumed parameters, one line each (a benchmark prints them next to its results). */
export function describeWorkloadOptions(options: WorkloadOptions): string {
  const mix = (weights: Record<string, number>): string => Object.entries(weights).map(([key, weight]) => `${key} ${weight}`).join(', ');
  return [
    `Workload parameters (assumed where the data files say so): thinking ${options.thinking ? 'on' : 'off'}; ` +
      `turns lognormal median ${options.turns.median} sigma ${options.turns.sigma} in [${options.turns.min}, ${options.turns.max}]; ` +
      `answer tokens lognormal median ${options.answerTokens.median} sigma ${options.answerTokens.sigma}; ` +
      `reasoning tokens lognormal median ${options.reasoningTokens.median} sigma ${options.reasoningTokens.sigma}; ` +
      `context limit ${options.contextTokens} tokens; tool output cap ${options.toolOutputCapChars} chars; ` +
      `Claude Code file-modified note after ${options.fileNoteAfterEdit * 100}% of edits, task reminder every ${options.reminderEveryCalls} calls.`,
    `Tool mix: ${mix(options.toolMix)}. Repository mix: ${mix(options.repoMix)}.`,
  ].join('\n');
}
