// Thinking models: what token-in and chat capture train with Qwen3's template thinking on, on sessions recorded with
// real harness CLIs (test/fixtures/token-in). Pi and Qwen Code replay the sampled reasoning as `reasoning_content` on
// the assistant turns they send back; Gemini CLI drops its thought parts (shared/reference/harness-lab.md).
// - token-in: each lineage is one row holding every sampled token, reasoning included, and every call was sampled
//   after all of the model's earlier reasoning (the gateway continues the lineage's exact tokens), whatever the
//   harness sent back;
// - chat: the engine renders the history the harness sent; Qwen3's template writes no think block for a turn whose
//   reasoning is empty or missing, so a sampled `<think>…</think>` is not in the next prompt and the lineage splits
//   there (at every turn for Gemini CLI). Every sampled token is still in exactly one row; a trainer taking one
//   sequence per sample trains one of them, and the rest is counted (one-sequence-per-sample), never dropped silently.
import { describe, expect, it } from 'vitest';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { measureYield } from '../bench/trainer-yield.js';
import { tokenInSessions, type TokenInHarness } from '../fixtures/token-in/token-in-fixture.js';
import { decodePrompts, toTrajectoryCalls } from '../fixtures/traces/trace-fixture.js';
import { pythonSkipReason } from './debian-python.js';

const THINK = 151667; // <think>
const REPLAYS: TokenInHarness[] = ['pi', 'qwen-code'];
const DROPS: TokenInHarness[] = ['gemini-cli'];
const HARNESSES = [...REPLAYS, ...DROPS];
const thinking = tokenInSessions(HARNESSES).filter((entry) => entry.scenario.thinking);
const count = (ids: readonly number[], id: number): number => ids.filter((token) => token === id).length;

describe('thinking template, token-in capture', () => {
  const sessions = thinking.filter((entry) => entry.scenario.mode === 'token-in');

  it.each(sessions.map((entry) => [`${entry.harness} ${entry.session.scenario}`, entry] as const))('%s: one row trains every sampled token, reasoning included', (_, { session }) => {
    const calls = toTrajectoryCalls(session);
    const build = buildPrefixMerging(1, calls);
    expect(verifyTrajectory(calls, build)).toEqual([]);
    expect(build.rows).toHaveLength(1);
    expect(build.diagnostics.lineages!.map((lineage) => lineage.kind)).toEqual(['main']);
    const [row] = build.rows;
    const trained = row!.responseIds.filter((_, i) => row!.lossMask[i] === 1);
    expect(trained).toEqual(calls.flatMap((call) => call.tokenIds!));
    expect(count(trained, THINK)).toBe(calls.length); // every call's think block (Qwen3 always opens one when thinking)
  });

  it.each(sessions.map((entry) => [`${entry.harness} ${entry.session.scenario}`, entry] as const))('%s: every call was sampled after all earlier reasoning', (_, { session }) => {
    const prompts = decodePrompts(session.calls);
    prompts.forEach((prompt, k) => expect(count(prompt!, THINK), `call ${k}`).toBe(k));
  });
});

describe('thinking template, chat capture', () => {
  const sessions = thinking.filter((entry) => entry.scenario.mode === 'chat');

  it.each(sessions.map((entry) => [`${entry.harness} ${entry.session.scenario}`, entry] as const))('%s: the lineage splits where a think block is not re-rendered; each sampled token is in one row', (_, { harness, session }) => {
    const calls = toTrajectoryCalls(session);
    const build = buildPrefixMerging(1, calls);
    expect(verifyTrajectory(calls, build)).toEqual([]); // every sampled token (reasoning included) mask 1 in exactly one row
    expect(build.rows.length).toBeGreaterThan(1);
    const earlier = count(decodePrompts(session.calls).at(-1)!, THINK);
    if (DROPS.includes(harness)) {
      expect(earlier).toBe(0); // the harness sent no reasoning back: the template rendered none
      expect(build.rows).toHaveLength(calls.length); // so no call continues another's exact tokens
    } else {
      expect(earlier).toBeGreaterThan(0); // replayed reasoning re-rendered ...
      const emptyThinks = calls.slice(0, -1).filter((call) => call.tokenIds!.indexOf(THINK + 1) - call.tokenIds!.indexOf(THINK) <= 2).length;
      expect(earlier).toBeLessThanOrEqual(calls.length - 1 - emptyThinks); // ... but an empty think block is not
    }
  });
});

const skip = pythonSkipReason();

describe.skipIf(skip !== undefined)('thinking template, at the trainers (the real Python adapters)', () => {
  it('token-in: every trainer receives every sampled token; chat: one-sequence trainers one row, the rest counted', async () => {
    const lines = (await measureYield(HARNESSES)).filter((line) => line.scenario.thinking);
    expect(lines).toHaveLength(HARNESSES.length * 8 * 5);
    for (const line of lines) {
      const where = `${line.harness} ${line.trainer} ${line.scenario.mode}:${line.scenario.toolFormat}:${line.scenario.engine}`;
      const oneSequence = !['slime', 'skyrl-step-wise'].includes(line.trainer);
      if (line.scenario.mode === 'token-in' || !oneSequence) {
        expect(line.received, where).toBe(line.sampled);
        expect(line.excluded, where).toEqual({});
      } else {
        expect(line.received, where).toBeLessThan(line.sampled);
        expect(Object.keys(line.excluded), where).toEqual(['one-sequence-per-sample']);
        expect(line.received + line.excluded['one-sequence-per-sample']!, where).toBe(line.sampled);
      }
    }
  }, 120_000);
});
