// A 30-turn agent session must cost linear, not quadratic, storage, and decode back exactly.
import { describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import { openStore } from '../../src/store/open-store.js';
import { packNumberArray } from '../../src/store/pack-number-array.js';
import type { StoreStats } from '../../src/store/read-store-stats.js';
import { expectSameRecord, storedToRecord } from './expect-same-record.js';
import { createSyntheticSession } from './synthetic-session.js';

const TURNS = 30;

function length(values: readonly number[] | null): number {
  return values?.length ?? 0;
}

describe('storage growth over a 30-turn session', () => {
  const store = openStore(':memory:');
  const sessionId = store.sessions.create().id;
  const records = createSyntheticSession(sessionId, TURNS);
  const perCall: { tokenBytes: number; rawBytes: number }[] = [];
  let before: StoreStats = store.stats({ sessionId });
  for (const record of records) {
    store.calls.insert(record);
    const after = store.stats({ sessionId });
    perCall.push({ tokenBytes: after.tokenBlobBytes - before.tokenBlobBytes, rawBytes: after.rawBlobBytes - before.rawBlobBytes });
    before = after;
  }
  const totals = store.stats({ sessionId });

  it('stores each later prompt as just its new tokens: 3 tag bytes + 3 per new prompt id + 7 per sampled id (uint24 ids, float32 logprobs)', () => {
    for (let turn = 1; turn < TURNS; turn++) {
      const { capture } = records[turn] as CallRecord;
      const previous = (records[turn - 1] as CallRecord).capture;
      const newPromptIds = length(capture.promptTokenIds) - length(previous.promptTokenIds) - length(previous.tokenIds);
      expect(perCall[turn]?.tokenBytes, `turn ${turn}`).toBe(3 + 3 * newPromptIds + 7 * length(capture.tokenIds));
    }
  });

  it('stores each later turn\u2019s raw bytes in under 3 KB while the request body grows past 60 KB', () => {
    const last = records[TURNS - 1] as CallRecord;
    expect(last.clientRequest.length).toBeGreaterThan(60_000);
    for (let turn = 1; turn < TURNS; turn++) expect(perCall[turn]?.rawBytes, `turn ${turn}`).toBeLessThan(3000);
  });

  it('keeps the whole session under 15% of its prompts stored in full, and under 6% of everything raw', () => {
    const fullPrompts = records.reduce((sum, r) => sum + packNumberArray(r.capture.promptTokenIds ?? []).length, 0);
    const fullRaw = records.reduce((sum, r) => sum + r.clientRequest.length + (r.upstreamRequest?.length ?? 0) + (r.upstreamResponse?.length ?? 0), 0);
    const stored = totals.tokenBlobBytes + totals.rawBlobBytes;
    expect(fullPrompts).toBeGreaterThan(975_000);
    expect(stored).toBeLessThan(0.15 * fullPrompts);
    expect(stored).toBeLessThan(0.06 * (fullPrompts + fullRaw));
    expect(totals).toMatchObject({
      sessions: 1,
      calls: TURNS,
      promptTokens: records.reduce((sum, r) => sum + length(r.capture.promptTokenIds), 0),
      sampledTokens: records.reduce((sum, r) => sum + length(r.capture.tokenIds), 0),
    });
  });

  it('decodes every prompt, sample and raw body exactly, listed or one by one', () => {
    const listed = store.calls.listBySession(sessionId, { withRaw: true });
    expect(listed.map((c) => c.seq)).toEqual(records.map((_, i) => i));
    listed.forEach((call, i) => {
      expectSameRecord(storedToRecord(call), records[i] as CallRecord, `listed ${i}`);
      expectSameRecord(storedToRecord(store.calls.get(call.id, { withRaw: true })), records[i] as CallRecord, `get ${i}`);
    });
  });
});
