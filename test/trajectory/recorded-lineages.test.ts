// The recorded sessions of the five real harness CLIs (test/fixtures/token-in: chat and token-in capture, both tool
// formats, vLLM and SGLang, Qwen3's template thinking and not) are each one agent with no sub-agent or side call: every
// call is in the main lineage, however the chat template re-rendered the history. Two kinds of re-rendering used to
// split them into a weight-0 lineage:
// - Claude Code appends a user message after a tool result (a "file was modified" note, a task reminder); Qwen3's
//   template keeps reasoning only in assistant turns after the last user query, so the next prompt renders every
//   earlier turn without its think block. Where the lineage had already continued after drift, those turns sat in the
//   row's prompt and were taken for the first query.
// - Qwen Code with thinking off: a tool call the template re-renders with no four tokens in common with what was
//   sampled aligned on the next turn's generation prompt (its empty think block) instead of on the turn's own end.
import { describe, expect, it } from 'vitest';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { scenarioName, tokenInSessions } from '../fixtures/token-in/token-in-fixture.js';
import { toTrajectoryCalls } from '../fixtures/traces/trace-fixture.js';

const sessions = tokenInSessions().map((entry) => [`${entry.harness} ${scenarioName(entry.scenario)}`, entry.session] as const);

describe('recorded harness sessions (test/fixtures/token-in)', () => {
  it.each(sessions)('%s: one main lineage holds every call; all drift is in re-rendered assistant turns', (_, session) => {
    const calls = toTrajectoryCalls(session);
    const build = buildPrefixMerging(1, calls);
    expect(verifyTrajectory(calls, build)).toEqual([]);
    expect(build.diagnostics.lineages!.map((lineage) => [lineage.kind, lineage.callIds])).toEqual([['main', calls.map((call) => call.id)]]);
    for (const split of build.diagnostics.splits) {
      if (split.reason.kind !== 'prefix-mismatch') continue;
      expect(split.reason.drift.continues, `call ${split.callId}`).toBe(true);
      expect(new Set(split.reason.drift.hunks.map((hunk) => hunk.place)), `call ${split.callId}`).toEqual(new Set(['assistant-turn']));
    }
  });
});
