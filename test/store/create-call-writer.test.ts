// The commit worker: calls committed off the event loop, in order, batched, byte-exact, from src (tsx) and from dist/.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import { DataError } from '../../src/errors.js';
import { createCallWriter, type CallWriter } from '../../src/store/create-call-writer.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { expectSameRecord, storedToRecord } from './expect-same-record.js';
import { createSyntheticSession } from './synthetic-session.js';
import { useTempDirs } from './temp-dir.js';

const tempDir = useTempDirs();
const stores: Store[] = [];
const writers: CallWriter[] = [];
afterEach(async () => {
  for (const writer of writers.splice(0)) await writer.close();
  for (const store of stores.splice(0)) store.close();
});

function storeWithSessions(count: number): { store: Store; path: string; ids: number[] } {
  const path = join(tempDir(), 'polar.db');
  const store = openStore(path);
  stores.push(store);
  return { store, path, ids: Array.from({ length: count }, () => store.sessions.create().id) };
}

describe('createCallWriter', () => {
  it('commits 8 interleaved sessions written at once in order and byte-exact', async () => {
    const { store, path, ids } = storeWithSessions(8);
    const writer = createCallWriter(path);
    writers.push(writer);
    const sessions = ids.map((id) => createSyntheticSession(id, 6));
    const written: Array<{ record: CallRecord; id: Promise<number> }> = [];
    for (let turn = 0; turn < 6; turn++) {
      for (const session of sessions) written.push({ record: session[turn] as CallRecord, id: writer.write(session[turn] as CallRecord) });
    }
    const callIds = await Promise.all(written.map((w) => w.id));
    expect(new Set(callIds).size).toBe(written.length);
    for (const [i, { record }] of written.entries()) {
      expectSameRecord(storedToRecord(store.calls.get(callIds[i] as number, { withRaw: true })), record, `call ${i}`);
    }
    for (const id of ids) expect(store.calls.listBySession(id).map((c) => c.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(store.stats().calls).toBe(48);
  });

  it('rejects a call of an unknown session with DataError and keeps the calls written with it', async () => {
    const { store, path, ids } = storeWithSessions(1);
    const writer = createCallWriter(path);
    writers.push(writer);
    const [good, bad] = [createSyntheticSession(ids[0] as number, 1)[0] as CallRecord, createSyntheticSession(999, 1)[0] as CallRecord];
    const results = await Promise.allSettled([writer.write(good), writer.write(bad)]);
    expect(results[0]?.status).toBe('fulfilled');
    expect(results[1]?.status).toBe('rejected');
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(DataError);
    expect(store.calls.listBySession(ids[0] as number)).toHaveLength(1);
  });

  it('restarts a worker that was ended, and rejects writes after close', async () => {
    const { store, path, ids } = storeWithSessions(1);
    const writer = createCallWriter(path);
    const [first, second] = createSyntheticSession(ids[0] as number, 2) as [CallRecord, CallRecord];
    await writer.write(first);
    writer.terminate();
    await expect(writer.write(second)).rejects.toThrow(/closed/);
    const again = createCallWriter(path);
    writers.push(again);
    expect(store.calls.get(await again.write(second))?.seq).toBe(1);
  });

  it('round-trips prompts that hold ids no Uint32Array can (the prior cache keeps those as numbers)', async () => {
    const { store, path, ids } = storeWithSessions(1);
    const writer = createCallWriter(path);
    writers.push(writer);
    const [first, second] = createSyntheticSession(ids[0] as number, 2) as [CallRecord, CallRecord];
    const odd = (record: CallRecord, values: number[]): CallRecord => ({
      ...record,
      capture: { ...record.capture, promptTokenIds: [...values, ...(record.capture.promptTokenIds ?? [])] },
    });
    const records = [odd(first, [-1, 2 ** 32, 0.5]), odd(second, [-1, 2 ** 32, 0.5])];
    for (const record of records) {
      expectSameRecord(storedToRecord(store.calls.get(await writer.write(record), { withRaw: true })), record);
    }
  });

  it('parses prompt ids left as JSON text in the worker, and tells the caller when that changed the status', async () => {
    const { store, path, ids } = storeWithSessions(1);
    const writer = createCallWriter(path);
    writers.push(writer);
    const [first, second] = createSyntheticSession(ids[0] as number, 2) as [CallRecord, CallRecord];
    const asText = (call: CallRecord, text: string): CallRecord => ({ ...call, capture: { ...call.capture, promptTokenIds: null, promptTokenIdsJson: text } });
    const agreeing = asText(first, JSON.stringify(first.capture.promptTokenIds));
    const stored = store.calls.get(await writer.write(agreeing))!;
    expect(agreeing.status).toBe(first.status);
    expect(stored.capture.promptTokenIds).toEqual(first.capture.promptTokenIds);
    expect(stored.status).toBe(first.status);
    // One id short of usage.prompt_tokens: stored as token_mismatch, and the caller's record says so.
    const short = asText({ ...second, status: 'ok', error: null, capture: { ...second.capture, promptTokens: second.capture.promptTokenIds!.length } }, JSON.stringify(second.capture.promptTokenIds!.slice(1)));
    const shortStored = store.calls.get(await writer.write(short))!;
    expect(shortStored.status).toBe('token_mismatch');
    expect(shortStored.capture.promptTokenIds).toEqual(second.capture.promptTokenIds!.slice(1));
    expect(short).toMatchObject({ status: 'token_mismatch' });
    expect(short.error).toContain('prompt ids');
  });

  it('loads the compiled worker from dist/ (what bin/polar.js runs)', async () => {
    const { store, path, ids } = storeWithSessions(1);
    const dist = pathToFileURL(join(import.meta.dirname, '../../dist/store/create-call-writer.js')).href;
    const { createCallWriter: createFromDist } = (await import(dist)) as { createCallWriter: typeof createCallWriter };
    const writer = createFromDist(path);
    writers.push(writer);
    const record = createSyntheticSession(ids[0] as number, 1)[0] as CallRecord;
    expectSameRecord(storedToRecord(store.calls.get(await writer.write(record), { withRaw: true })), record);
  });
});
