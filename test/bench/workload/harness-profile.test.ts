import { describe, expect, it } from 'vitest';
import { decodePrompts, loadTraceFixture, TRACE_HARNESSES } from '../../fixtures/traces/trace-fixture.js';
import { exampleProblemStatement, loadHarnessProfiles } from './harness-profiles.js';
import { measureHarnessProfile, measureTransitions, rawToolOutputs } from './harness-profile.js';
import { advancePrompt } from './sample-session.js';

const stored = loadHarnessProfiles().harnesses;
const pi = loadTraceFixture('pi');

describe('harness profiles', () => {
  it.each(TRACE_HARNESSES)('%s: the stored profile is what the recorded traces measure (re-run write-harness-profiles.ts after re-recording)', (harness) => {
    expect(measureHarnessProfile(loadTraceFixture(harness), pi, exampleProblemStatement())).toEqual(stored[harness]);
  });

  it.each(TRACE_HARNESSES)('%s: every transition splits its prompt into reused prefix and new tail', (harness) => {
    const fixture = loadTraceFixture(harness);
    for (const session of fixture.sessions) {
      const prompts = decodePrompts(session.calls);
      for (const t of measureTransitions(session, session.scenario, null)) {
        expect(t.keep + t.tail).toBe(prompts[t.call]?.length);
        expect(t.keep).toBeLessThanOrEqual(t.previousPrompt + t.previousOutput);
      }
    }
  });

  it('tells apart a harness that resends its output from one that re-renders it', () => {
    expect(stored.pi.resendsOutput).toBe(true);
    expect(stored['claude-code'].resendsOutput).toBe(true);
    expect(stored['gemini-cli'].resendsOutput).toBe(false);
    // Gemini CLI's next prompt keeps exactly the previous prompt (its reasoning is never resent).
    for (const t of stored['gemini-cli'].transitions.filter((x) => x.session === 'scripted')) expect(t.previousPrompt - t.keep).toBeLessThanOrEqual(1);
  });

  it("finds Claude Code's reminders as rewrites near the top of the prompt, and no other harness's", () => {
    const rewrites = stored['claude-code'].rewrites;
    expect(rewrites.map((r) => r.call)).toEqual([3, 5]);
    expect(rewrites[0]!.text).toContain('was modified');
    expect(rewrites[1]!.text).toContain('task tools');
    // The second reminder goes right after the first.
    expect(rewrites[1]!.at).toBe(rewrites[0]!.at + rewrites[0]!.insertedTokens);
    for (const harness of TRACE_HARNESSES.filter((h) => h !== 'claude-code')) expect(stored[harness].rewrites).toEqual([]);
  });

  it('finds where task-specific text starts in the first prompt (what sessions on other tasks cannot share)', () => {
    for (const harness of TRACE_HARNESSES) expect(stored[harness].taskStartsAt).toBeLessThanOrEqual(stored[harness].basePromptTokens);
    // Claude Code lists the repository's recent commits in its system prompt, before the tool schemas.
    expect(stored['claude-code'].taskStartsAt).toBeLessThan(stored['claude-code'].rewrites[0]!.at);
    // Pi and Codex put nothing about the repository before the task text.
    expect(stored.pi.basePromptTokens - stored.pi.taskStartsAt).toBeLessThan(8);
    expect(stored.codex.basePromptTokens - stored.codex.taskStartsAt).toBeLessThan(8);
  });

  it('reads the raw tool outputs of the six scripted commands from Pi', () => {
    const outputs = rawToolOutputs(pi);
    expect([...outputs.keys()]).toEqual(['ls', 'cat calc.py', "sed -i 's/return a - b/return a + b/' calc.py", 'grep -n "return a" calc.py', 'python3 -m unittest -v', 'echo fixed']);
    // `sed -i` prints nothing (Pi shows "(no output)"); `cat calc.py` prints the 11-line file.
    expect(outputs.get("sed -i 's/return a - b/return a + b/' calc.py")).toBeLessThan(5);
    expect(outputs.get('cat calc.py')).toBeGreaterThan(40);
  });

  it.each(TRACE_HARNESSES)("%s: the generator's prompt accounting replays the recorded session within a few tokens per call", (harness) => {
    const profile = stored[harness];
    const fixture = loadTraceFixture(harness);
    const session = fixture.sessions.find((s) => s.scenario === 'scripted')!;
    const prompts = decodePrompts(session.calls);
    const transitions = profile.transitions.filter((t) => t.session === 'scripted');
    let rewriteAt = Math.min(...profile.rewrites.map((r) => r.at), Number.POSITIVE_INFINITY);
    for (const t of transitions) {
      const output = t.previousOutput;
      // The recorded reasoning is not separated from the answer; for the re-rendering harness the re-rendered part is measured.
      const answer = profile.resendsOutput ? output : t.rerendered;
      const reminders = profile.rewrites.filter((r) => r.call === t.call);
      const next = advancePrompt(profile, { prompt: t.previousPrompt, output, answer, observationTokens: Math.round(profile.wrapTokensPerToolResult) + t.toolOutput }, reminders, rewriteAt);
      rewriteAt = next.rewriteAt;
      const recorded = prompts[t.call]!.length;
      // Per-call deviations are the spread of the wrapping and re-render sizes around their means.
      expect(Math.abs(next.prompt - recorded)).toBeLessThanOrEqual(40);
      expect(Math.abs(next.prefix - t.keep)).toBeLessThanOrEqual(40);
      expect(next.rewrite).toBe(t.rewrite !== null);
    }
  });
});
