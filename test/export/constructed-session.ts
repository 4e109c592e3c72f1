// A hand-built agent session (ChatML-like ids) with a side call, a compaction and a sub-agent, for export tests.
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import { E, GEN, SYSTEM, USER, toolResult, turn } from '../trajectory/chatml-tokens.js';

function call(seq: number, prompt: number[], tokenIds: number[]): TrajectoryCall {
  return {
    id: seq + 1,
    seq,
    status: 'ok',
    promptTokenIds: prompt,
    tokenIds,
    logprobs: tokenIds.map((_, i) => -(seq + 1 + (i + 1) / 100)),
    finishReason: 'stop',
    response: null,
  };
}

const main1Prompt = [...turn(SYSTEM, 100), ...turn(USER, 110), ...GEN];
const main2Prompt = [...main1Prompt, 200, 201, E, ...toolResult(300)];
const main3Prompt = [...main2Prompt, 202, E, ...toolResult(301)];
/** A title-generation side call: its own system prompt. */
const sidePrompt = [...turn(SYSTEM, 900), ...turn(USER, 901), ...GEN];
/** Compaction: the history is replaced by a summary (777), so the main chain cannot be extended. */
const compactPrompt = [...turn(SYSTEM, 100), ...turn(USER, 777), ...GEN];
const subPrompt = [...turn(SYSTEM, 500), ...turn(USER, 510), ...GEN];

/**
 * 8 calls in capture order: main1, main2, side, main3, compacted, sub1, sub2, after-compaction.
 * prefix_merging gives 4 rows: [main1 main2 main3], [side], [compacted after-compaction], [sub1 sub2].
 */
export const constructedSession: TrajectoryCall[] = [
  call(0, main1Prompt, [200, 201, E]),
  call(1, main2Prompt, [202, E]),
  call(2, sidePrompt, [950, E]),
  call(3, main3Prompt, [203, E]),
  call(4, compactPrompt, [204, E]),
  call(5, subPrompt, [600, E]),
  call(6, [...subPrompt, 600, E, ...toolResult(700)], [601, E]),
  call(7, [...compactPrompt, 204, E, ...toolResult(302)], [205, E]),
];

/** Call indexes per prefix_merging row, in row order. */
export const constructedRows = [[0, 1, 3], [2], [4, 7], [5, 6]];

/** The main row's response: sampled (mask 1) and tool results (mask 0). */
export const mainRowResponse = {
  ids: [200, 201, E, ...toolResult(300), 202, E, ...toolResult(301), 203, E],
  mask: [1, 1, 1, ...toolResult(300).map(() => 0), 1, 1, ...toolResult(301).map(() => 0), 1, 1],
};
