// A lineage that continued after drift keeps its identity: its row's prompt holds the lineage's re-rendered history,
// and a later difference there is drift in that history, not a rewritten first query (a new lineage).
import { describe, expect, it } from 'vitest';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import { verifyTrajectory } from '../../src/trajectory/verify-trajectory.js';
import { E, GEN, NL, SYSTEM, USER, toolResult, turn } from './chatml-tokens.js';

const THINK_OPEN = 151667;
const THINK_CLOSE = 151668;
const NL2 = 271;
const TOOL_CALL_OPEN = 151657;
const TOOL_CALL_CLOSE = 151658;
/** Qwen3's generation prompt with thinking off: `<think>\n\n</think>\n\n` after `<|im_start|>assistant\n`. */
const EMPTY_THINK = [THINK_OPEN, NL2, THINK_CLOSE, NL2];

function call(id: number, prompt: number[], tokenIds: number[]): TrajectoryCall {
  return { id, seq: id, status: 'ok', promptTokenIds: prompt, tokenIds, logprobs: tokenIds.map((_, i) => -(id + i / 100)), finishReason: 'stop', response: null };
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
/** A harness's long system prompt (tools, instructions), as every real one sends. */
const system = turn(SYSTEM, ...range(1000, 200));
const firstPrompt = (query: number) => [...system, ...turn(USER, query, query + 1), ...GEN];
/** A sampled turn with reasoning: `<think>\n{reasoning}\n</think>\n\n{tool call}<|im_end|>`. */
const thinkingTurn = (k: number) => [THINK_OPEN, NL, 300 + k, 301 + k, NL, THINK_CLOSE, NL2, TOOL_CALL_OPEN, 400 + k, TOOL_CALL_CLOSE, E];
/** The same turn as Qwen3's template re-renders it before the last user query: no think block. */
const withoutThinking = (k: number) => [TOOL_CALL_OPEN, 400 + k, TOOL_CALL_CLOSE, E];
/** A tool result, then a user note the harness appends (Claude Code's "file was modified" reminder), then the generation prompt. */
const toolResultAndNote = (content: number) => [...toolResult(content).slice(0, -GEN.length), ...turn(USER, 700, 701, 702), ...GEN];

/**
 * Claude Code on Qwen3 with thinking on: three tool turns, then a user note moves the template's last query, so the
 * fourth prompt renders every earlier turn without its think block. With `bpeDrift`, the second prompt re-renders the
 * first turn with one token merged (a BPE difference), so the lineage continues in a second row whose prompt holds the
 * first turn; without it, every turn merges exactly into one row.
 */
function thinkingSession(bpeDrift: boolean, query = 500): TrajectoryCall[] {
  const turns = [thinkingTurn(0), thinkingTurn(1), thinkingTurn(2)];
  const first = bpeDrift ? [THINK_OPEN, NL, 399, NL, THINK_CLOSE, NL2, TOOL_CALL_OPEN, 400, TOOL_CALL_CLOSE, E] : turns[0]!;
  const prompt1 = firstPrompt(500);
  const prompt2 = [...prompt1, ...first, ...toolResult(600)];
  const prompt3 = [...prompt2, ...turns[1]!, ...toolResult(601)];
  const rerendered = [...firstPrompt(query), ...withoutThinking(0), ...toolResult(600), ...withoutThinking(1), ...toolResult(601), ...withoutThinking(2)];
  const prompt4 = [...rerendered, ...toolResultAndNote(602)];
  return [call(1, prompt1, turns[0]!), call(2, prompt2, turns[1]!), call(3, prompt3, turns[2]!), call(4, prompt4, [800, E])];
}

const lineagesOf = (calls: TrajectoryCall[]) => {
  const build = buildPrefixMerging(1, calls);
  expect(verifyTrajectory(calls, build)).toEqual([]);
  return { rows: build.rows.length, lineages: build.diagnostics.lineages!.map((lineage) => [lineage.kind, lineage.callIds]) };
};

describe('lineages after drift', () => {
  it("a re-rendered history continues the lineage whether or not earlier turns merged exactly; a rewritten first query still starts a new one", () => {
    // Every turn merged: the dropped think blocks sit in the row's response, in sampled turns.
    expect(lineagesOf(thinkingSession(false))).toEqual({ rows: 2, lineages: [['main', [1, 2, 3, 4]]] });
    // The first turn drifted: the second row's prompt holds the first turn, re-rendered. Its dropped think block is
    // still a sampled turn's, not the lineage's first query.
    expect(lineagesOf(thinkingSession(true))).toEqual({ rows: 3, lineages: [['main', [1, 2, 3, 4]]] });
    // The same history under another first user message: a new lineage, in the second row's prompt as in the first's.
    expect(lineagesOf(thinkingSession(true, 550)).lineages).toEqual([
      ['main', [1, 2, 3]],
      ['side', [4]],
    ]);
  });

  it('aligns a re-rendered last turn on its own end, not on the generation prompt of the turn after it', () => {
    // Qwen3 with thinking off: the prompt ends with an empty think block; the model wrote its tool call in its own
    // JSON (key order, escapes), which the template re-renders with no four tokens in common, and drops the think
    // block. The next prompt's own generation prompt ends with the same four tokens, after a long tool result.
    const prompt1 = [...firstPrompt(500), ...EMPTY_THINK];
    const sampled = [TOOL_CALL_OPEN, ...range(410, 12), TOOL_CALL_CLOSE, E];
    const rendered = [TOOL_CALL_OPEN, ...range(430, 10), TOOL_CALL_CLOSE, E];
    const prompt2 = [...firstPrompt(500), ...rendered, ...toolResult(...range(610, 40)), ...EMPTY_THINK];
    const build = buildPrefixMerging(1, [call(1, prompt1, sampled), call(2, prompt2, [800, E])]);
    expect(build.diagnostics.splits[1]!.reason).toMatchObject({
      kind: 'prefix-mismatch',
      drift: {
        // the empty think block and the sampled call (but for its last two tokens) became the rendered call
        hunks: [{ place: 'assistant-turn', contextIndex: firstPrompt(500).length, contextTokens: EMPTY_THINK.length + sampled.length - 2, promptTokens: rendered.length - 2 }],
        continues: true,
      },
    });
    expect(build.diagnostics.lineages!.map((lineage) => [lineage.kind, lineage.callIds])).toEqual([['main', [1, 2]]]);
  });
});
