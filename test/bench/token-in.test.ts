// The token-in benchmark's claims, checked on the recorded sessions (no Docker): for every harness, both tool
// formats, both engine flavours and thinking on and off, token-in mode is one main-lineage row with zero drift,
// chat mode drifts (measured); and the latency part runs at a tiny size and yields samples
// for both modes.
import { describe, expect, it } from 'vitest';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { loadTokenInFixture, TOKEN_IN_HARNESSES } from '../fixtures/token-in/token-in-fixture.js';
import { TOOL_FORMATS } from '../../src/model-format/format-types.js';
import { toTrajectoryCalls } from '../fixtures/traces/trace-fixture.js';
import { renderTokenInLatency, renderTokenInRows } from './token-in.js';

describe('token-in benchmark', () => {
  it.each(TOKEN_IN_HARNESSES)('%s: recorded in every setting; token-in is one lineage of one row without drift, chat drifts', (harness) => {
    const sessions = loadTokenInFixture(harness).sessions;
    const expected = ['vllm', 'sglang'].flatMap((engine) =>
      ['thinking', 'no-thinking'].flatMap((thinking) => TOOL_FORMATS.flatMap((format) => ['chat', 'token-in'].map((mode) => `${mode}:${format}:${engine}:${thinking}`))),
    );
    expect(sessions.map((session) => session.scenario).sort()).toEqual(expected.sort());
    for (const session of sessions) {
      expect(session.status, session.scenario).toBe('completed');
      const calls = toTrajectoryCalls(session);
      expect(calls.length).toBeGreaterThanOrEqual(10);
      const build = buildPrefixMerging(1, calls);
      expect(verifyTrajectory(calls, build)).toEqual([]);
      const lineages = build.diagnostics.lineages!;
      if (session.scenario.startsWith('token-in')) {
        expect(lineages.map((lineage) => [lineage.kind, lineage.rowIndexes]), session.scenario).toEqual([['main', [0]]]);
        expect(build.diagnostics.drift.driftTokens, session.scenario).toBe(0);
      } else {
        expect(build.diagnostics.drift.continuationsWithDrift, session.scenario).toBeGreaterThan(0);
      }
    }
  });

  it('renders the rows table and, at a tiny size, the latency table', async () => {
    expect(renderTokenInRows().split('\n').filter((line) => /^\| (pi|codex|claude-code|qwen-code|gemini-cli) /.test(line))).toHaveLength(80);
    const latency = await renderTokenInLatency(0.1);
    expect(latency).toMatch(/\| token-in +\| 14 +\|/);
    expect(latency).toMatch(/\| added by token-in /);
  });
});
