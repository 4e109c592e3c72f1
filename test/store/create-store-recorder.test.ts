// The gateway recorder: session lookup across processes, caching, and commit-before-return.
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallRecord } from '../../src/capture/call-record.js';
import { createStoreRecorder } from '../../src/store/create-store-recorder.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { expectSameRecord, storedToRecord } from './expect-same-record.js';
import { createSyntheticSession } from './synthetic-session.js';
import { useTempDirs } from './temp-dir.js';

const tempDir = useTempDirs();
const open: Store[] = [];
afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

/** Two Stores on one file, as the gateway process and a `polar sessions new` process would have. */
function twoProcesses(): [Store, Store] {
  const path = join(tempDir(), 'polar.db');
  const gateway = openStore(path);
  const cli = openStore(path);
  open.push(gateway, cli);
  return [gateway, cli];
}

describe('createStoreRecorder', () => {
  it('finds a session created a moment ago by another connection, after having missed it', () => {
    const [gateway, cli] = twoProcesses();
    const recorder = createStoreRecorder(gateway);
    expect(recorder.findSession('polar-not-yet')).toBeUndefined();
    const created = cli.sessions.create({ simulated: true });
    expect(recorder.findSession(created.key)).toEqual({ id: created.id, key: created.key, simulated: true });
  });

  it('does not cache a miss: the same unknown key is found once it exists', () => {
    const [gateway, cli] = twoProcesses();
    const recorder = createStoreRecorder(gateway);
    const key = cli.sessions.create().key;
    const spy = vi.spyOn(gateway.sessions, 'findByKey');
    spy.mockReturnValueOnce(undefined);
    expect(recorder.findSession(key)).toBeUndefined();
    expect(recorder.findSession(key)?.key).toBe(key);
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('answers a known key from memory without querying again', () => {
    const [gateway] = twoProcesses();
    const recorder = createStoreRecorder(gateway);
    const key = gateway.sessions.create().key;
    const spy = vi.spyOn(gateway.sessions, 'findByKey');
    const first = recorder.findSession(key);
    const second = recorder.findSession(key);
    expect(second).toEqual(first);
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it.each([
    { name: 'a real upstream keeps the session as created', upstream: false, created: false, expected: false },
    { name: 'a simulator upstream marks the session simulated', upstream: true, created: false, expected: true },
    { name: 'a session created simulated stays simulated', upstream: false, created: true, expected: true },
  ])('$name', ({ upstream, created, expected }) => {
    const [gateway, cli] = twoProcesses();
    const session = cli.sessions.create({ simulated: created });
    expect(createStoreRecorder(gateway, { simulated: upstream }).findSession(session.key)?.simulated).toBe(expected);
    expect(cli.sessions.get(session.id)?.simulated).toBe(expected);
  });

  it('commits each call (in the commit worker) before resolving, so another connection reads it at once', async () => {
    const [gateway, cli] = twoProcesses();
    const recorder = createStoreRecorder(gateway);
    const session = cli.sessions.create();
    const ref = recorder.findSession(session.key);
    const records = createSyntheticSession(ref?.id ?? -1, 3);
    for (const [i, record] of records.entries()) {
      const id = await recorder.recordCall(record);
      expectSameRecord(storedToRecord(cli.calls.get(id, { withRaw: true })), records[i] as CallRecord);
    }
    expect(cli.calls.listBySession(session.id).map((c) => c.seq)).toEqual([0, 1, 2]);
  });
});
