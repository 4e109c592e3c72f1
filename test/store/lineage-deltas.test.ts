// A session with side calls interleaved between main calls: two kinds of lineage, the main one row, stored delta-encoded.
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import { toTrajectoryCall } from '../../src/export/to-trajectory-call.js';
import { openStore } from '../../src/store/open-store.js';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import { createRandom, createSyntheticSession } from './synthetic-session.js';

const IM_END = 151645;
const MAIN_TURNS = 12;

function ids(random: () => number, n: number): number[] {
  return Array.from({ length: n }, () => Math.floor(random() * 150_000));
}

/** Main calls extend one another; after every main call but the last, a side call with its own 1500-id prompt. */
function interleaved(sessionId: number): { records: CallRecord[]; main: number[] } {
  const random = createRandom(7);
  const template = createSyntheticSession(sessionId, 1)[0]!;
  const record = (prompt: number[], sampled: number[]): CallRecord => ({
    ...template,
    capture: { ...template.capture, promptTokenIds: prompt, tokenIds: sampled, logprobs: sampled.map(() => -0.5), finishReason: 'stop', promptTokens: prompt.length, completionTokens: sampled.length },
  });
  const records: CallRecord[] = [];
  const main: number[] = [];
  let prompt = ids(random, 2000);
  for (let turn = 0; turn < MAIN_TURNS; turn++) {
    const sampled = [...ids(random, 150), IM_END];
    main.push(records.length);
    records.push(record(prompt, sampled));
    if (turn < MAIN_TURNS - 1) records.push(record(ids(random, 1500), [...ids(random, 20), IM_END]));
    prompt = prompt.concat(sampled, ids(random, 400));
  }
  return { records, main };
}

describe('an interleaved side call', () => {
  const store = openStore(':memory:');
  const sessionId = store.sessions.create().id;
  const { records, main } = interleaved(sessionId);
  const tokenBytes: number[] = [];
  let before = store.stats({ sessionId }).tokenBlobBytes;
  for (const record of records) {
    store.calls.insert(record);
    const after = store.stats({ sessionId }).tokenBlobBytes;
    tokenBytes.push(after - before);
    before = after;
  }

  it('does not force the next main call to be stored in full: 3 tag bytes + 3 per new prompt id + 7 per sampled id', () => {
    for (const [k, index] of main.entries()) {
      if (k === 0) continue;
      const { capture } = records[index]!;
      const previous = records[main[k - 1]!]!.capture;
      const newPromptIds = capture.promptTokenIds!.length - previous.promptTokenIds!.length - previous.tokenIds!.length;
      expect(newPromptIds).toBe(400);
      expect(tokenBytes[index], `main call ${k}`).toBe(3 + 3 * newPromptIds + 7 * capture.tokenIds!.length);
    }
    const lastMain = records[main.at(-1)!]!.capture.promptTokenIds!.length;
    expect(lastMain).toBeGreaterThan(7000);
  });

  it('decodes every call exactly and builds two kinds of lineage: the main one row, each side call its own', () => {
    const calls = store.calls.listBySession(sessionId);
    calls.forEach((call, i) => expect(call.capture.promptTokenIds).toEqual(records[i]!.capture.promptTokenIds));
    const build = buildPrefixMerging(sessionId, calls.map(toTrajectoryCall));
    const lineages = build.diagnostics.lineages ?? [];
    const mainLineage = lineages.find((lineage) => lineage.kind === 'main')!;
    expect(mainLineage.rowIndexes).toHaveLength(1);
    expect(mainLineage.callIds).toEqual(main.map((index) => calls[index]!.id));
    expect(lineages.filter((lineage) => lineage.kind === 'side')).toHaveLength(MAIN_TURNS - 1);
    expect(build.rows).toHaveLength(MAIN_TURNS);
    expect(build.diagnostics.drift.continuationsWithDrift).toBe(0);
  });
});

describe('ids that are not uint32 in a lineage', () => {
  it('round-trip exactly whether the odd value sits in the earlier prompt, its sampled ids or the later prompt', () => {
    for (const odd of [-0, 1.5, 2 ** 32, -3]) {
      for (const where of ['prompt', 'sampled', 'later'] as const) {
        const store = openStore(':memory:');
        try {
          const sessionId = store.sessions.create().id;
          const template = createSyntheticSession(sessionId, 1)[0]!;
          const record = (prompt: number[], sampled: number[]): CallRecord => ({
            ...template,
            capture: { ...template.capture, promptTokenIds: prompt, tokenIds: sampled, logprobs: sampled.map(() => -0.5), finishReason: 'stop', promptTokens: prompt.length, completionTokens: sampled.length },
          });
          const prompt = [1, 2, where === 'prompt' ? odd : 3, 4];
          const sampled = [5, where === 'sampled' ? odd : 6, IM_END];
          // Where the earlier call had the odd value, the later prompt has its uint32 wrap (1.5 → 1, 2^32 → 0,
          // -0 → 0): a delta base that wrapped it too would claim a longer shared prefix and decode the odd value back.
          const wrapped = (values: number[]) => values.map((value) => (Object.is(value, odd) ? odd >>> 0 : value));
          const later = [...wrapped(prompt), ...wrapped(sampled), 7, where === 'later' ? odd : 8];
          store.calls.insert(record(prompt, sampled));
          store.calls.insert(record(later, [9, IM_END]));
          const [first, second] = store.calls.listBySession(sessionId);
          expect(first!.capture.promptTokenIds, `${odd} in ${where}`).toEqual(prompt);
          expect(first!.capture.tokenIds).toEqual(sampled);
          expect(second!.capture.promptTokenIds, `${odd} in ${where}`).toEqual(later);
          if (where === 'later') expect(Object.is(second!.capture.promptTokenIds![8], odd)).toBe(true);
        } finally {
          store.close();
        }
      }
    }
  });
});
