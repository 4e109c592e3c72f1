import { describe, expect, it } from 'vitest';
import { defaultWorkload } from './default-workload.js';
import type { SessionPlan, TurnPlan } from './session-plan.js';
import { describeWorkloadOptions, summarizeWorkload, workloadStats } from './summarize-workload.js';

function turn(promptTokens: number, prefixTokens: number, outputTokens: number, toolMs: number): TurnPlan {
  return { promptTokens, prefixTokens, newTokens: promptTokens - prefixTokens, outputTokens, reasoningTokens: 0, rewrite: false, toolKind: toolMs > 0 ? 'read' : null, toolMs, observationTokens: toolMs > 0 ? 10 : 0 };
}

function plan(harness: SessionPlan['harness'], turns: TurnPlan[], endedBy: SessionPlan['endedBy'] = 'turns'): SessionPlan {
  return { harness, repo: 'django', problemTokens: 100, initMs: 2000, harnessStartMs: 3000, harnessPrefixTokens: 900, turns, sideCalls: [], postMs: 4000, post: { dockerMs: 3000, testRunMs: 1000 }, endedBy };
}

describe('summarizeWorkload', () => {
  const plans = [
    plan('pi', [turn(1000, 0, 100, 50), turn(1200, 1100, 300, 0)]),
    plan('pi', [turn(1000, 0, 200, 20_000), turn(1500, 1200, 100, 30), turn(1700, 1600, 400, 0)], 'context'),
  ];

  it('computes turns, output, tool-time, last-prompt and prefix-reuse figures per group', () => {
    const stats = workloadStats(plans);
    expect(stats.turns).toEqual({ p50: 2, p90: 3, max: 3 });
    expect(stats.toolMs.max).toBe(20_000);
    expect(stats.lastPrompt.max).toBe(1700);
    // New tokens: 1000 + 100 + 1000 + 300 + 100 of 1000 + 1200 + 1000 + 1500 + 1700.
    expect(stats.newShare).toBeCloseTo(2500 / 6400, 6);
    expect(stats.endedByContext).toBe(0.5);
  });

  it('prints one row per harness that has sessions, and one for all', () => {
    const table = summarizeWorkload(plans).split('\n');
    expect(table[0]).toContain('turns p50');
    expect(table.filter((line) => line.startsWith('| pi '))).toHaveLength(1);
    expect(table.filter((line) => line.startsWith('| all '))).toHaveLength(1);
    expect(table.some((line) => line.startsWith('| codex '))).toBe(false);
  });

  it('prints the assumed parameters it ran with', () => {
    const text = describeWorkloadOptions(defaultWorkload({ thinking: false }).options);
    expect(text).toContain('thinking off');
    expect(text).toContain('context limit 50000 tokens');
    expect(text).toContain('Tool mix: read 0.3');
  });
});
