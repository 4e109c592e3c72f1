// Constructed sessions for prefix_merging: tool loops, sub-agents, compaction, length finishes, retries.
import { describe, expect, it } from 'vitest';
import type { CallStatus } from '../../src/capture/call-record.js';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import type { SplitReason } from '../../src/trajectory/trajectory-row.js';
import { E, GEN, NL, SYSTEM, USER, toolResult, turn } from './chatml-tokens.js';


function call(
  id: number,
  prompt: number[],
  tokenIds: number[],
  options: { finishReason?: string; status?: CallStatus } = {},
): TrajectoryCall {
  return {
    id,
    seq: id,
    status: options.status ?? 'ok',
    promptTokenIds: prompt,
    tokenIds,
    logprobs: tokenIds.map((_, i) => -(id + (i + 1) / 100)),
    finishReason: options.finishReason ?? (tokenIds.at(-1) === E ? 'stop' : 'length'),
    response: null,
  };
}

const mainPrompt1 = [...turn(SYSTEM, 100, 101), ...turn(USER, 110), ...GEN];
const main1 = [200, 201, E];
const mainPrompt2 = [...mainPrompt1, ...main1, ...toolResult(300, 301)];
const main2 = [202, E];
const mainPrompt3 = [...mainPrompt2, ...main2, ...toolResult(302)];
const main3 = [203, 204, E];
const subPrompt1 = [...turn(SYSTEM, 500), ...turn(USER, 510), ...GEN];
const sub1 = [600, E];
const subPrompt2 = [...subPrompt1, ...sub1, ...toolResult(700)];
const sub2 = [601, 602, E];

interface Case {
  name: string;
  calls: TrajectoryCall[];
  eosTokenIds?: number[];
  rows: number[][];
  splits: [number, SplitReason['kind']][];
}

const cases: Case[] = [
  {
    name: 'a tool loop merges into one row',
    calls: [call(1, mainPrompt1, main1), call(2, mainPrompt2, main2), call(3, mainPrompt3, main3)],
    rows: [[1, 2, 3]],
    splits: [[1, 'first-call']],
  },
  {
    name: 'a sub-agent interleaved with the main chain; the main chain resumes',
    calls: [
      call(1, mainPrompt1, main1),
      call(2, subPrompt1, sub1),
      call(3, mainPrompt2, main2),
      call(4, subPrompt2, sub2),
      call(5, mainPrompt3, main3),
    ],
    rows: [
      [1, 3, 5],
      [2, 4],
    ],
    splits: [
      [1, 'first-call'],
      [2, 'prefix-mismatch'],
    ],
  },
  {
    name: 'a compaction (prompt shrinks) starts a new chain that later calls extend',
    calls: [
      call(1, mainPrompt1, main1),
      call(2, mainPrompt2, main2),
      call(3, [...turn(SYSTEM, 100, 101), ...turn(USER, 900), ...GEN], [901, E]),
      call(4, [...turn(SYSTEM, 100, 101), ...turn(USER, 900), ...GEN, 901, E, ...toolResult(902)], [903, E]),
    ],
    rows: [
      [1, 2],
      [3, 4],
    ],
    splits: [
      [1, 'first-call'],
      [3, 'prefix-mismatch'],
    ],
  },
  {
    name: 'a length finish closes the chain; the continuation starts its own',
    calls: [
      call(1, mainPrompt1, [200, 201], { finishReason: 'length' }),
      call(2, [...mainPrompt1, 200, 201, E, ...toolResult(300)], [202, E]),
      call(3, [...mainPrompt1, 200, 201, E, ...toolResult(300), 202, E, ...toolResult(301)], [203, E]),
    ],
    rows: [[1], [2, 3]],
    splits: [
      [1, 'first-call'],
      [2, 'length-finish'],
    ],
  },
  {
    name: 'a stop string (no EOS sampled) closes the chain too',
    calls: [
      call(1, mainPrompt1, [200, 201], { finishReason: 'stop' }),
      call(2, [...mainPrompt1, 200, 201, E, ...toolResult(300)], [202, E]),
    ],
    rows: [[1], [2]],
    splits: [
      [1, 'first-call'],
      [2, 'no-eos'],
    ],
  },
  {
    name: 'a failed call is reported and skipped; the chain continues past it',
    calls: [
      call(1, mainPrompt1, main1),
      call(2, mainPrompt2, [], { status: 'upstream_error' }),
      call(3, mainPrompt2, main2),
    ],
    rows: [[1, 3]],
    splits: [
      [1, 'first-call'],
      [2, 'not-trainable'],
    ],
  },
  {
    name: 'a retry with the same prompt starts a new chain (its context lacks the first sample)',
    calls: [call(1, mainPrompt1, main1), call(2, mainPrompt1, [205, E])],
    rows: [[1], [2]],
    splits: [
      [1, 'first-call'],
      [2, 'prefix-mismatch'],
    ],
  },
  {
    name: 'nested open chains: the longest matching context wins over the most recent',
    calls: [
      call(1, [10], [11, 12, E]),
      call(2, [10, 11, 12, E, NL], [13, E]),
      call(3, [10, 11], [12, E]),
      call(4, [10, 11, 12, E, NL, 13, E, NL], [14, E]),
    ],
    rows: [[1, 2, 4], [3]],
    splits: [
      [1, 'first-call'],
      [3, 'prefix-mismatch'],
    ],
  },
  {
    name: 'equal contexts: the most recent chain wins',
    calls: [call(1, [10], [11, 12, E]), call(2, [10, 11], [12, E]), call(3, [10, 11, 12, E, NL], [13, E])],
    rows: [[1], [2, 3]],
    splits: [
      [1, 'first-call'],
      [2, 'prefix-mismatch'],
    ],
  },
  {
    name: 'the EOS set is a parameter: with another EOS, <|im_end|> does not close a turn',
    calls: [call(1, mainPrompt1, main1), call(2, mainPrompt2, main2)],
    eosTokenIds: [151643],
    rows: [[1], [2]],
    splits: [
      [1, 'first-call'],
      [2, 'no-eos'],
    ],
  },
];

describe('buildPrefixMerging on constructed sessions', () => {
  it.each(cases)('$name', ({ calls, eosTokenIds, rows, splits }) => {
    const build = buildPrefixMerging(7, calls, eosTokenIds ? { eosTokenIds } : undefined);
    expect(build.rows.map((row) => row.callIds)).toEqual(rows);
    expect(build.diagnostics.splits.map((split) => [split.callId, split.reason.kind])).toEqual(splits);
    expect(build.rows.every((row) => row.sessionId === 7 && row.builder === 'prefix_merging')).toBe(true);
    expect(build.diagnostics.drift.continuationsWithDrift).toBeGreaterThanOrEqual(0);
  });

  it('lays out a merged row: prompt = first prompt, response = samples (mask 1) and glue (mask 0)', () => {
    const calls = [call(1, mainPrompt1, main1), call(2, mainPrompt2, main2)];
    const [row] = buildPrefixMerging(1, calls).rows;
    const glue = toolResult(300, 301);
    expect(row!.promptIds).toEqual(mainPrompt1);
    expect(row!.responseIds).toEqual([...main1, ...glue, ...main2]);
    expect(row!.lossMask).toEqual([1, 1, 1, ...glue.map(() => 0), 1, 1]);
    expect(row!.logprobs).toEqual([...calls[0]!.logprobs!, ...glue.map(() => null), ...calls[1]!.logprobs!]);
  });

  it('reports where a prefix mismatch starts and how many context tokens differ', () => {
    // The harness re-rendered the sampled [200, 201] as one token 250 (BPE re-segmentation).
    const rerendered = [...mainPrompt1, 250, E, ...toolResult(300)];
    const build = buildPrefixMerging(1, [call(1, mainPrompt1, main1), call(2, rerendered, main2)]);
    const reason = build.diagnostics.splits[1]!.reason;
    const contextLength = mainPrompt1.length + main1.length;
    expect(reason).toEqual({
      kind: 'prefix-mismatch',
      candidateRowIndex: 0,
      firstDifferingIndex: mainPrompt1.length,
      differingTokens: 3, // positional: 200/250, 201/<|im_end|>, <|im_end|>/\n (the shift counts)
      candidateContextLength: contextLength,
      promptLength: rerendered.length,
      // measured: [200, 201] became [250]; the contexts agree again from <|im_end|> on
      drift: { hunks: [{ place: 'assistant-turn', contextIndex: mainPrompt1.length, contextTokens: 2, promptTokens: 1 }], tokens: 2, continues: true },
    });
    expect(build.diagnostics.drift).toEqual({
      mergedTurns: 0,
      continuationsWithDrift: 1,
      driftTokens: 2,
      driftTokensByPlace: { 'assistant-turn': 2, 'system-prompt': 0, 'tool-result': 0, other: 0 },
      prefixMismatchSplits: 1,
      prefixMismatchDifferingTokens: 3,
    });
  });

  it("continues the lineage when a thinking-off template drops the generation prompt's empty think block on re-render", () => {
    // Qwen3 with enable_thinking false ends each generation prompt with <think>\n\n</think>\n\n; re-rendering the
    // turn as history drops it. The hunk sits in the chain's first prompt, right before the sampled tokens.
    const THINK = [151667, 271, 151668, 271];
    const [a, b, c] = [[200, 201, 202, 203, 204, E], [210, 211, 212, 213, E], [220, 221, E]];
    const prompt1 = [...mainPrompt1, ...THINK];
    const prompt2 = [...mainPrompt1, ...a, ...toolResult(300, 301), ...THINK];
    const prompt3 = [...mainPrompt1, ...a, ...toolResult(300, 301), ...b, ...toolResult(302), ...THINK];
    const build = buildPrefixMerging(1, [call(1, prompt1, a), call(2, prompt2, b), call(3, prompt3, c)]);
    expect(build.rows).toHaveLength(3);
    expect(build.diagnostics.splits[1]!.reason).toMatchObject({
      kind: 'prefix-mismatch',
      drift: { hunks: [{ place: 'assistant-turn', contextIndex: mainPrompt1.length, contextTokens: 4, promptTokens: 0 }], tokens: 4, continues: true },
    });
    expect(build.diagnostics.lineages!.map((lineage) => [lineage.kind, lineage.callIds])).toEqual([['main', [1, 2, 3]]]);
  });

  it('counts a prompt that stops inside the context as differing for the missing tail', () => {
    const build = buildPrefixMerging(1, [call(1, mainPrompt1, main1), call(2, mainPrompt1, [205, E])]);
    expect(build.diagnostics.splits[1]!.reason).toMatchObject({
      kind: 'prefix-mismatch',
      firstDifferingIndex: mainPrompt1.length,
      differingTokens: main1.length,
    });
  });

  it('names the chain a length finish closed', () => {
    const calls = [
      call(1, subPrompt1, sub1),
      call(2, mainPrompt1, [200], { finishReason: 'length' }),
      call(3, [...mainPrompt1, 200, E, ...toolResult(1)], [2, E]),
    ];
    expect(buildPrefixMerging(1, calls).diagnostics.splits[2]!.reason).toEqual({
      kind: 'length-finish',
      candidateRowIndex: 1,
    });
  });

  it('sums the session counters', () => {
    const calls = [
      call(1, mainPrompt1, main1),
      call(2, subPrompt1, sub1),
      call(3, mainPrompt2, main2),
      call(4, subPrompt2, [], { status: 'client_aborted' }),
    ];
    const { diagnostics } = buildPrefixMerging(1, calls);
    const glue = mainPrompt2.length - mainPrompt1.length - main1.length;
    expect(diagnostics).toMatchObject({
      calls: 4,
      trainableCalls: 3,
      chains: 2,
      rows: 2,
      tokensTrained: main1.length + sub1.length + main2.length,
      tokensMasked: glue,
      promptTokens: mainPrompt1.length + subPrompt1.length,
      drift: { mergedTurns: 1, continuationsWithDrift: 0 },
    });
  });

  it('builds nothing from a session without trainable calls, and says why', () => {
    const build = buildPrefixMerging(1, [call(1, mainPrompt1, main1, { status: 'upstream_timeout' })]);
    expect(build.rows).toEqual([]);
    expect(build.diagnostics.splits).toEqual([
      { callId: 1, seq: 1, reason: { kind: 'not-trainable', status: 'upstream_timeout', detail: 'status' } },
    ]);
  });

  it('carries per-token versions through a merged row: two versions in one row, -1 on every masked token', () => {
    // Call 2 was paused in "keep" mode after its first token and continued under version 5.
    const calls = [
      { ...call(1, mainPrompt1, main1), policyVersion: 4 },
      { ...call(2, mainPrompt2, main2), policyVersion: 4, tokenVersions: [4, 5] },
      { ...call(3, mainPrompt3, main3), policyVersion: 5 },
    ];
    const [row] = buildPrefixMerging(1, calls).rows;
    const glue = (from: number[], to: number[], sampled: number[]) => to.length - from.length - sampled.length;
    expect(row!.versions).toEqual([
      ...main1.map(() => 4),
      ...Array(glue(mainPrompt1, mainPrompt2, main1)).fill(-1),
      4,
      5,
      ...Array(glue(mainPrompt2, mainPrompt3, main2)).fill(-1),
      ...main3.map(() => 5),
    ]);
    expect(row!.versions).toHaveLength(row!.responseIds.length);
    row!.lossMask.forEach((bit, i) => expect(row!.versions![i]! === -1).toBe(bit === 0));
  });

  it('gives a row no versions when one of its calls recorded none', () => {
    const calls = [{ ...call(1, mainPrompt1, main1), policyVersion: 4 }, call(2, mainPrompt2, main2)];
    expect(buildPrefixMerging(1, calls).rows[0]!.versions).toBeNull();
  });

  it('never trains on a call whose per-token versions do not cover its sampled tokens', () => {
    const calls = [{ ...call(1, mainPrompt1, main1), tokenVersions: [1, 1] }, { ...call(2, subPrompt1, sub1), tokenVersions: [0, -1] }];
    expect(buildPrefixMerging(1, calls).diagnostics.splits.map((split) => split.reason)).toEqual([
      { kind: 'not-trainable', status: 'ok', detail: 'version-count-mismatch' },
      { kind: 'not-trainable', status: 'ok', detail: 'invalid-version' },
    ]);
  });
});
