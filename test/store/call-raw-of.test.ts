// rawOf: the raw bytes of chosen calls alone, byte-identical to a full read, whatever order or lineage they sit in.
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { createSyntheticSession } from './synthetic-session.js';

describe('calls.rawOf', () => {
  const store = openStore(':memory:');
  const sessionId = store.sessions.create().id;
  const other = store.sessions.create().id;
  // Two conversations interleaved in one session (a main agent and a sub-agent, each growing), and another session.
  const main = createSyntheticSession(sessionId, 14, 1);
  const sub = createSyntheticSession(sessionId, 14, 2);
  const elsewhere = createSyntheticSession(other, 6, 3);
  for (let i = 0; i < 14; i++) {
    store.calls.insert(main[i]!);
    store.calls.insert(sub[i]!);
    if (i < 6) store.calls.insert(elsewhere[i]!);
  }
  const full = new Map([...store.calls.listBySession(sessionId, { withRaw: true }), ...store.calls.listBySession(other, { withRaw: true })].map((call) => [call.id, call.raw]));

  it('returns exactly the requested calls, byte-identical to reading every call with its raw bytes', () => {
    const ids = [...full.keys()];
    // Out of order, repeated, across both lineages and both sessions; the last calls have the longest chains.
    const wanted = [ids.at(-1)!, ids[3]!, ids.at(-2)!, ids[3]!, ids[17]!, ids[0]!];
    const raws = store.calls.rawOf(wanted);
    expect([...raws.keys()].sort((a, b) => a - b)).toEqual([...new Set(wanted)].sort((a, b) => a - b));
    for (const [id, raw] of raws) {
      expect(raw.clientRequest.equals(full.get(id)!.clientRequest), `client request of call ${id}`).toBe(true);
      expect(raw.upstreamRequest!.equals(full.get(id)!.upstreamRequest!), `upstream request of call ${id}`).toBe(true);
      expect(raw.upstreamResponse).toEqual(full.get(id)!.upstreamResponse);
    }
    // The requests really differ from call to call, so a wrong chain would show.
    expect(new Set([...raws.values()].map((raw) => raw.clientRequest.length)).size).toBe(raws.size);
  });

  it('reads every call of a session the same way, and nothing for no ids', () => {
    const ids = [...full.keys()];
    const raws = store.calls.rawOf(ids);
    for (const id of ids) expect(raws.get(id)!.clientRequest.equals(full.get(id)!.clientRequest)).toBe(true);
    expect(store.calls.rawOf([]).size).toBe(0);
  });

  it('throws DataError for an unknown call', () => {
    expect(() => store.calls.rawOf([999_999])).toThrow(DataError);
  });
});
