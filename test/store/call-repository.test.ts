// Calls round-trip field for field, get seq numbers per session, and decode across delta chains.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import { DataError } from '../../src/errors.js';
import { CHECKPOINT_INTERVAL } from '../../src/store/delta-policy.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { expectSameRecord, storedToRecord } from './expect-same-record.js';
import { createSyntheticSession } from './synthetic-session.js';
import { useTempDirs } from './temp-dir.js';

const tempDir = useTempDirs();

let store: Store;
let sessionId: number;
beforeEach(() => {
  store = openStore(':memory:');
  sessionId = store.sessions.create().id;
});
afterEach(() => store.close());

function baseRecord(): CallRecord {
  return createSyntheticSession(sessionId, 1)[0] as CallRecord;
}

const variants: { name: string; change: (r: CallRecord) => CallRecord }[] = [
  { name: 'a complete ok call', change: (r) => r },
  {
    name: 'every nullable field null',
    change: (r) => ({
      ...r,
      protocol: 'anthropic-messages',
      stream: false,
      status: 'upstream_unavailable',
      error: 'connect ECONNREFUSED 127.0.0.1:8000',
      httpStatus: 502,
      requestedModel: null,
      upstreamModel: null,
      upstreamRequest: null,
      upstreamResponse: null,
      capture: { promptTokenIds: null, tokenIds: null, logprobs: null, finishReason: null, stopReason: null, promptTokens: null, completionTokens: null },
      response: null,
      ttfbMs: null,
    }),
  },
  {
    name: 'empty arrays and empty bytes',
    change: (r) => ({
      ...r,
      clientRequest: Buffer.alloc(0),
      upstreamRequest: Buffer.alloc(0),
      upstreamResponse: Buffer.alloc(0),
      capture: { ...r.capture, promptTokenIds: [], tokenIds: [], logprobs: [] },
    }),
  },
  { name: 'a numeric stop reason', change: (r) => ({ ...r, capture: { ...r.capture, stopReason: 151_645 } }) },
  { name: 'a string stop reason that looks like JSON', change: (r) => ({ ...r, capture: { ...r.capture, stopReason: 'null' } }) },
  { name: 'float64 logprobs and huge ids', change: (r) => ({ ...r, capture: { ...r.capture, tokenIds: [0xffff_ffff, 0], logprobs: [-0.1, -9999] } }) },
  { name: 'fractional timings', change: (r) => ({ ...r, ttfbMs: 0.125, latencyMs: 1234.5678 }) },
  { name: 'binary raw bytes', change: (r) => ({ ...r, upstreamResponse: Buffer.from([0, 255, 1, 254, 10, 13]) }) },
];

describe('calls', () => {
  it.each(variants)('round-trips $name field for field', ({ change }) => {
    const record = change(baseRecord());
    const id = store.calls.insert(record);
    const stored = store.calls.get(id, { withRaw: true });
    expect(stored).toBeDefined();
    expect(stored?.id).toBe(id);
    expectSameRecord(storedToRecord(stored), record);
    expect(storedToRecord(stored)).toStrictEqual(record);
    const lean = store.calls.get(id);
    expect(lean?.raw).toBeNull();
    expect(lean?.capture).toStrictEqual(record.capture);
  });

  it('returns undefined for an unknown call id', () => {
    expect(store.calls.get(12345)).toBeUndefined();
  });

  it('numbers calls 0, 1, 2, ... per session, interleaved across sessions', () => {
    const other = store.sessions.create().id;
    const order = [sessionId, other, sessionId, sessionId, other];
    const ids = order.map((s) => store.calls.insert({ ...baseRecord(), sessionId: s }));
    expect(ids.map((id) => store.calls.get(id)?.seq)).toEqual([0, 0, 1, 2, 1]);
    expect(store.calls.listBySession(sessionId).map((c) => [c.seq, c.id])).toEqual([
      [0, ids[0]],
      [1, ids[2]],
      [2, ids[3]],
    ]);
    expect(store.calls.listBySession(other).map((c) => c.sessionId)).toEqual([other, other]);
  });

  it('refuses a call for an unknown session with a DataError', () => {
    expect(() => store.calls.insert({ ...baseRecord(), sessionId: 999 })).toThrow(DataError);
    expect(store.stats().calls).toBe(0);
  });

  it('decodes every call of a long session across checkpoints, chain breaks and null prompts', () => {
    const path = join(tempDir(), 'polar.db');
    const fileStore = openStore(path);
    const session = fileStore.sessions.create().id;
    const records = createSyntheticSession(session, CHECKPOINT_INTERVAL * 2 + 6, 7).map((r, i) => {
      if (i === 40) return { ...r, capture: { ...r.capture, promptTokenIds: [1, 2, 3] } };
      if (i === 41) return { ...r, capture: { ...r.capture, promptTokenIds: null }, upstreamRequest: null };
      if (i === 50) return { ...r, clientRequest: Buffer.from('[compacted]') };
      return r;
    });
    const ids = records.map((r) => fileStore.calls.insert(r));
    const listed = fileStore.calls.listBySession(session, { withRaw: true });
    expect(listed).toHaveLength(records.length);
    listed.forEach((call, i) => expectSameRecord(storedToRecord(call), records[i] as CallRecord, `call ${i}`));
    for (const i of [0, CHECKPOINT_INTERVAL - 1, CHECKPOINT_INTERVAL, 40, 41, 42, 50, 51, ids.length - 1]) {
      expectSameRecord(storedToRecord(fileStore.calls.get(ids[i] as number, { withRaw: true })), records[i] as CallRecord, `get ${i}`);
    }
    fileStore.close();
    const raw = new Database(path, { readonly: true });
    const fullAt = (column: string) => raw.prepare(`SELECT seq FROM calls WHERE ${column} IS NULL ORDER BY seq`).pluck().all();
    // 40: shares 0 of 3 ids; 41: no prompt ids; 42 skips 41 (no prompt) for 39, the recent call of its lineage;
    // 50/51: the body shrank, then grew back.
    expect(fullAt('prompt_base_call_id')).toEqual([0, 40, 41, 64, 128]);
    expect(fullAt('client_request_base_call_id')).toEqual([0, 50, 51, 64, 128]);
    expect(fullAt('upstream_request_base_call_id')).toEqual([0, 41, 64, 128]);
    raw.close();
  });

  it('diffs against the true previous call when another connection appended in between', () => {
    const path = join(tempDir(), 'polar.db');
    const a = openStore(path);
    const b = openStore(path);
    try {
      const shared = a.sessions.create().id;
      const records = createSyntheticSession(shared, 6, 3);
      const writers = [a, a, b, a, b, b];
      writers.forEach((writer, i) => writer.calls.insert(records[i] as CallRecord));
      for (const reader of [a, b]) {
        const listed = reader.calls.listBySession(shared, { withRaw: true });
        expect(listed.map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5]);
        listed.forEach((call, i) => expectSameRecord(storedToRecord(call), records[i] as CallRecord, `call ${i}`));
      }
      const raw = new Database(path, { readonly: true });
      const links = raw.prepare('SELECT id, prompt_base_call_id AS p, client_request_base_call_id AS c, upstream_request_base_call_id AS u FROM calls ORDER BY seq').all() as { id: number; p: number | null; c: number | null; u: number | null }[];
      raw.close();
      links.forEach((link, i) => {
        const previous = i === 0 ? null : (links[i - 1]?.id ?? null);
        expect([link.p, link.c, link.u], `bases of call ${i}`).toEqual([previous, previous, previous]);
      });
    } finally {
      a.close();
      b.close();
    }
  });
});
