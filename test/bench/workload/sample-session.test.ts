import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/sim/seeded-random.js';
import { TRACE_HARNESSES, type TraceHarness } from '../../fixtures/traces/trace-fixture.js';
import { defaultWorkload, loadWorkloadData, sampleSession } from './default-workload.js';
import type { SessionPlan } from './session-plan.js';
import { TOOL_KINDS, TOOL_REPOS, type ToolKind } from './tool-times.js';

const data = loadWorkloadData();
/** No context limit and one repository at a time, so drawn values can be compared with their sources. */
const unlimited = defaultWorkload({ contextTokens: Number.POSITIVE_INFINITY });

function plans(harness: TraceHarness, count: number, seed: number, workload = unlimited): SessionPlan[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => workload.sampleSession(harness, random));
}

/** Share of `values` at or below `threshold`. */
const shareAtMost = (values: readonly number[], threshold: number): number => values.filter((v) => v <= threshold).length / values.length;
/** Standard normal quantiles used below. */
const Z = { 10: -1.2816, 50: 0, 90: 1.2816 } as const;

/**
 * Sampling error of an empirical CDF at a point whose true probability is q: sqrt(q(1-q)/n). The checks allow
 * 4.5 standard errors (the seeds are fixed, so a pass is reproducible; a real mismatch is many errors wide).
 */
function expectShare(values: readonly number[], threshold: number, q: number): void {
  const tolerance = 4.5 * Math.sqrt((q * (1 - q)) / values.length) + 1 / values.length;
  expect(Math.abs(shareAtMost(values, threshold) - q)).toBeLessThanOrEqual(tolerance);
}

describe('sampleSession', () => {
  it('is deterministic under a seed and differs across seeds', () => {
    const first = seededRandom(42);
    const second = seededRandom(42);
    const a = Array.from({ length: 5 }, () => sampleSession('codex', first));
    const b = Array.from({ length: 5 }, () => sampleSession('codex', second));
    expect(a).toEqual(b);
    expect(new Set(a.map((plan) => JSON.stringify(plan))).size).toBe(5);
    expect(sampleSession('codex', seededRandom(43))).not.toEqual(a[0]);
  });

  it.each(TRACE_HARNESSES)('%s: every call splits its prompt into resent prefix and new tokens; a session that ran its turns ends on an answer without a tool call', (harness) => {
    for (const plan of plans(harness, 50, 7, defaultWorkload())) {
      expect(plan.turns.length).toBeGreaterThan(0);
      plan.turns.forEach((turn, i) => {
        expect(turn.prefixTokens + turn.newTokens).toBe(turn.promptTokens);
        expect(turn.newTokens).toBeGreaterThan(0);
        if (i === 0) expect(turn.prefixTokens).toBe(0);
        else {
          const previous = plan.turns[i - 1]!;
          expect(turn.prefixTokens).toBeLessThanOrEqual(previous.promptTokens + previous.outputTokens);
          expect(turn.promptTokens).toBeGreaterThan(previous.promptTokens);
        }
      });
      const last = plan.turns[plan.turns.length - 1]!;
      // A session the context limit ended stops after a tool call whose result no longer fits.
      expect(last.toolKind === null).toBe(plan.endedBy === 'turns');
      if (plan.endedBy === 'turns') expect([last.toolMs, last.observationTokens]).toEqual([0, 0]);
      expect(plan.turns.slice(0, -1).every((turn) => turn.toolKind !== null && turn.toolMs > 0)).toBe(true);
      expect(plan.turns[0]!.promptTokens).toBe(data.profiles[harness].basePromptTokens + plan.problemTokens);
    }
  });

  it('keeps every prompt within the context limit and says when the limit ended a session', () => {
    const limited = plans('claude-code', 200, 11, defaultWorkload());
    for (const plan of limited) for (const turn of plan.turns) expect(turn.promptTokens + turn.outputTokens).toBeLessThanOrEqual(50_000);
    expect(limited.some((plan) => plan.endedBy === 'context')).toBe(true);
    expect(plans('claude-code', 50, 11).every((plan) => plan.endedBy === 'turns')).toBe(true);
  });

  it('reuses the previous call as prefix the way each harness does: Gemini CLI resends only the prompt, Claude Code re-prefills after a reminder', () => {
    for (const plan of plans('gemini-cli', 20, 3)) plan.turns.slice(1).forEach((turn, i) => expect(turn.prefixTokens).toBe(plan.turns[i]!.promptTokens));
    for (const plan of plans('pi', 20, 3)) plan.turns.slice(1).forEach((turn, i) => expect(turn.prefixTokens).toBeGreaterThan(plan.turns[i]!.promptTokens));
    const claude = plans('claude-code', 20, 3).flatMap((plan) => plan.turns.filter((turn) => turn.rewrite));
    expect(claude.length).toBeGreaterThan(0);
    // The prefix stops above the conversation: inside the system prompt, before the task.
    for (const turn of claude) expect(turn.prefixTokens).toBeLessThan(data.profiles['claude-code'].basePromptTokens);
  });

  it('draws turn counts from the published distribution (quantiles within sampling error)', () => {
    const { median, sigma } = data.published.turns;
    const turns = plans('pi', 3000, 21).map((plan) => plan.turns.length);
    for (const q of [10, 50, 90] as const) expectShare(turns, Math.round(median * Math.exp(sigma * Z[q])), q / 100);
  });

  it('draws output lengths from the published answer + reasoning distributions, and no reasoning with thinking off', () => {
    const calls = plans('codex', 400, 5).flatMap((plan) => plan.turns);
    const reasoning = calls.map((turn) => turn.reasoningTokens);
    const answers = calls.map((turn) => turn.outputTokens - turn.reasoningTokens);
    const { answer, reasoning: thought } = data.published.outputTokens;
    for (const q of [10, 50, 90] as const) {
      expectShare(answers, answer.median * Math.exp(answer.sigma * Z[q]), q / 100);
      expectShare(reasoning, thought.median * Math.exp(thought.sigma * Z[q]), q / 100);
    }
    const plain = defaultWorkload({ thinking: false, contextTokens: Number.POSITIVE_INFINITY });
    expect(plans('codex', 20, 5, plain).every((plan) => plan.turns.every((turn) => turn.reasoningTokens === 0))).toBe(true);
  });

  it('draws tool times and tool-output sizes from the recorded samples of the same repository and kind', () => {
    for (const repo of TOOL_REPOS) {
      const only = defaultWorkload({ contextTokens: Number.POSITIVE_INFINITY, repoMix: { django: 0, sympy: 0, pylint: 0, [repo]: 1 } });
      const turns = plans('pi', 300, 13, only).flatMap((plan) => plan.turns.filter((turn) => turn.toolKind !== null));
      // What a tool result adds to the next prompt: the harness's wrapping plus a recorded output (capped at 30,000 chars).
      const shown = new Set(data.toolTimes.repos[repo].map((sample) => (sample.outputChars > 30_000 ? Math.round((sample.outputTokens * 30_000) / sample.outputChars) : sample.outputTokens)));
      for (const turn of turns) expect(shown.has(turn.observationTokens - Math.round(data.profiles.pi.wrapTokensPerToolResult))).toBe(true);
      const byKind = new Map<ToolKind, number[]>();
      for (const turn of turns) byKind.set(turn.toolKind!, [...(byKind.get(turn.toolKind!) ?? []), turn.toolMs]);
      for (const kind of TOOL_KINDS) {
        const recorded = data.toolTimes.repos[repo].filter((sample) => sample.kind === kind).map((sample) => sample.ms).sort((a, b) => a - b);
        const drawn = byKind.get(kind) ?? [];
        // Every drawn time is a recorded one; the drawn median sits at the recorded median within sampling error.
        for (const ms of drawn) expect(recorded).toContain(ms);
        // (Recorded times tie at 0.1 ms resolution, so the expected share is counted, not taken from the rank.)
        const median = recorded[Math.floor((recorded.length - 1) / 2)]!;
        if (drawn.length >= 100) expectShare(drawn, median, shareAtMost(recorded, median));
      }
    }
  });

  it('draws init from the recorded create + prepare and post from the recorded extract + evaluate + teardown plus a test-file run', () => {
    const rows = TRACE_HARNESSES.flatMap((harness) => data.phaseTimes.harnesses[harness]);
    const inits = new Set(rows.map((row) => row.create + row.prepare));
    const dockers = new Set(rows.map((row) => row.extract + row.evaluate + row.teardown));
    for (const plan of plans('qwen-code', 100, 17)) {
      expect(inits.has(plan.initMs)).toBe(true);
      expect(dockers.has(plan.post.dockerMs)).toBe(true);
      expect(data.toolTimes.repos[plan.repo].some((sample) => sample.kind === 'test_file' && sample.ms === plan.post.testRunMs)).toBe(true);
      expect(plan.postMs).toBe(plan.post.dockerMs + plan.post.testRunMs);
      expect(data.phaseTimes.harnesses['qwen-code'].some((row) => row.agent === plan.harnessStartMs)).toBe(true);
    }
  });

  it('gives the sessions of one task (a GRPO group) the same first prompt', () => {
    const workload = defaultWorkload();
    const random = seededRandom(99);
    const task = workload.sampleTask(random);
    const group = Array.from({ length: 8 }, () => workload.sampleSession('pi', random, task));
    expect(new Set(group.map((plan) => plan.turns[0]!.promptTokens)).size).toBe(1);
    expect(new Set(group.map((plan) => plan.repo))).toEqual(new Set([task.repo]));
    const drawn = workload.sampleGroup('codex', 16, seededRandom(5));
    expect(drawn).toHaveLength(16);
    expect(new Set(drawn.map((plan) => `${plan.repo}/${plan.problemTokens}`)).size).toBe(1);
    expect(new Set(drawn.map((plan) => plan.turns.length)).size).toBeGreaterThan(1);
  });
});
