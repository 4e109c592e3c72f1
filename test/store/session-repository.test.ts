// Sessions: keys, lookups by key or id, and listing with per-session totals.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallRecord, CallStatus } from '../../src/capture/call-record.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { SESSION_KEY_PREFIX } from '../../src/store/session-key.js';
import { createSyntheticSession } from './synthetic-session.js';

let store: Store;
beforeEach(() => {
  store = openStore(':memory:');
});
afterEach(() => store.close());

function withStatus(record: CallRecord, status: CallStatus, usage: boolean): CallRecord {
  const capture = usage ? record.capture : { ...record.capture, promptTokens: null, completionTokens: null };
  return { ...record, status, capture };
}

describe('sessions', () => {
  it('creates sessions with distinct polar- keys of 32 base64url characters', () => {
    const a = store.sessions.create();
    const b = store.sessions.create();
    for (const s of [a, b]) expect(s.key).toMatch(new RegExp(`^${SESSION_KEY_PREFIX}[A-Za-z0-9_-]{32}$`));
    expect(a.key).not.toBe(b.key);
    expect(b.id).toBe(a.id + 1);
  });

  it.each([
    { name: 'defaults', input: {}, expected: { label: null, simulated: false, meta: null } },
    { name: 'all fields', input: { label: 'django-1234', simulated: true, meta: { harness: 'codex', n: [1, 2] } }, expected: { label: 'django-1234', simulated: true, meta: { harness: 'codex', n: [1, 2] } } },
    { name: 'explicit nulls', input: { label: null, meta: null }, expected: { label: null, simulated: false, meta: null } },
  ])('stores $name and reads them back', ({ input, expected }) => {
    const before = Date.now();
    const created = store.sessions.create(input);
    expect(created).toMatchObject(expected);
    expect(created.createdAt).toBeGreaterThanOrEqual(before);
    expect(store.sessions.findByKey(created.key)).toEqual(created);
  });

  it('gets a session by id, by decimal id string, or by key', () => {
    const session = store.sessions.create({ label: 'x' });
    expect(store.sessions.get(session.id)).toEqual(session);
    expect(store.sessions.get(String(session.id))).toEqual(session);
    expect(store.sessions.get(session.key)).toEqual(session);
    expect(store.sessions.get(999)).toBeUndefined();
    expect(store.sessions.get('polar-nope')).toBeUndefined();
    expect(store.sessions.findByKey('polar-nope')).toBeUndefined();
  });

  it('marks a session simulated', () => {
    const session = store.sessions.create();
    expect(store.sessions.markSimulated(session.id)).toBe(true);
    expect(store.sessions.get(session.id)?.simulated).toBe(true);
    expect(store.sessions.markSimulated(999)).toBe(false);
  });

  it('lists newest first with call, token and status counts, paged', () => {
    const empty = store.sessions.create({ label: 'empty' });
    const busy = store.sessions.create({ label: 'busy' });
    const last = store.sessions.create({ label: 'last' });
    const [r0, r1, r2] = createSyntheticSession(busy.id, 3);
    store.calls.insert(withStatus(r0 as CallRecord, 'ok', true));
    store.calls.insert(withStatus(r1 as CallRecord, 'ok', false));
    store.calls.insert(withStatus(r2 as CallRecord, 'upstream_timeout', true));
    const list = store.sessions.list();
    expect(list.map((s) => s.label)).toEqual(['last', 'busy', 'empty']);
    const summary = list[1];
    const usage = (r: CallRecord | undefined) => ({ p: r?.capture.promptTokenIds?.length ?? 0, c: r?.capture.tokenIds?.length ?? 0 });
    const total = [r0, r1, r2].map(usage).reduce((a, b) => ({ p: a.p + b.p, c: a.c + b.c }));
    expect(summary).toMatchObject({ id: busy.id, callCount: 3, promptTokens: total.p, completionTokens: total.c });
    expect(summary?.statusCounts).toMatchObject({ ok: 2, upstream_timeout: 1, client_aborted: 0 });
    expect(list[2]).toMatchObject({ id: empty.id, callCount: 0, promptTokens: 0, completionTokens: 0 });
    expect(Object.values(list[2]?.statusCounts ?? {}).every((n) => n === 0)).toBe(true);
    expect(store.sessions.list({ limit: 1 }).map((s) => s.id)).toEqual([last.id]);
    expect(store.sessions.list({ limit: 1, offset: 1 }).map((s) => s.id)).toEqual([busy.id]);
    expect(store.sessions.list({ limit: 1, offset: 1 })[0]?.statusCounts.ok).toBe(2);
    expect(store.sessions.list({ offset: 3 })).toEqual([]);
  });
});
