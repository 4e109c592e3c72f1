// The token-in benchmark's claims, checked on the recorded sessions (no Docker): for every harness and
// both tool formats, token-in mode is one main-lineage row with zero drift, chat mode drifts (measured);
// and the latency part runs at a tiny size and yields samples for both modes.
import { describe, expect, it } from 'vitest';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { loadTokenInFixture, TOKEN_IN_HARNESSES } from '../fixtures/token-in/token-in-fixture.js';
import { toTrajectoryCalls } from '../fixtures/traces/trace-fixture.js';
import { renderTokenInLatency, renderTokenInRows } from './token-in.js';

describe('token-in benchmark', () => {
  it.each(TOKEN_IN_HARNESSES)('%s: recorded in both modes and both tool formats; token-in is one main row without drift, chat drifts', (harness) => {
    const sessions = loadTokenInFixture(harness).sessions;
    expect(sessions.map((session) => session.scenario).sort()).toEqual(['chat:hermes', 'chat:qwen3_coder', 'token-in:hermes', 'token-in:qwen3_coder']);
    for (const session of sessions) {
      const calls = toTrajectoryCalls(session);
      expect(calls.length).toBeGreaterThanOrEqual(10);
      const build = buildPrefixMerging(1, calls);
      expect(verifyTrajectory(calls, build)).toEqual([]);
      const main = build.diagnostics.lineages!.find((lineage) => lineage.kind === 'main')!;
      if (session.scenario.startsWith('token-in')) {
        expect(main.rowIndexes, session.scenario).toHaveLength(1);
        expect(build.diagnostics.drift.driftTokens, session.scenario).toBe(0);
      } else {
        expect(build.diagnostics.drift.continuationsWithDrift, session.scenario).toBeGreaterThan(0);
      }
    }
  });

  it('renders the rows table and, at a tiny size, the latency table', async () => {
    expect(renderTokenInRows().split('\n').filter((line) => /^\| (pi|codex|claude-code|qwen-code) /.test(line))).toHaveLength(16);
    const latency = await renderTokenInLatency(0.1);
    expect(latency).toMatch(/\| token-in +\| 14 +\|/);
    expect(latency).toMatch(/\| added by token-in /);
  });
});
