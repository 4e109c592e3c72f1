// The batch repository's light reads polar serve uses at session ends: the completed-group count, the callback
// URL and the tail decision, each without parsing the batch's request (tasks can be inline) or reading group rows.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TailDecision } from '../../src/store/batch-repository.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { useTempDirs } from './temp-dir.js';

const temp = useTempDirs();

function batch(store: Store, id: string, callbackUrl: string | null = null) {
  return store.batches.create({ id, runName: `serve-${id}`, idempotencyKey: null, requestHash: id, request: { harness: 'pi', tasks: [{ instance_id: 'x' }] }, policyVersion: 0, callbackUrl });
}

describe('batch repository: counts and single-column reads', () => {
  it('counts a batch’s completed groups (each once), separately per batch, as groups() lists them', () => {
    const store = openStore(path.join(temp(), 'polar.db'));
    try {
      batch(store, 'b_one');
      batch(store, 'b_two');
      expect(store.batches.groupCount('b_one')).toBe(0);
      store.batches.completeGroup('b_one', 1, 'repo__x-1');
      store.batches.completeGroup('b_one', 2, 'repo__x-2');
      expect(store.batches.completeGroup('b_one', 1, 'repo__x-1')).toBeUndefined();
      store.batches.completeGroup('b_two', 3, 'repo__x-3');
      expect(store.batches.groupCount('b_one')).toBe(2);
      expect(store.batches.groupCount('b_one')).toBe(store.batches.groups('b_one').length);
      expect(store.batches.groupCount('b_two')).toBe(1);
      expect(store.batches.groupCount('b_none')).toBe(0);
    } finally {
      store.close();
    }
  });

  it('saves the tail decision once (true), keeps the first (false after), and reads it back alone', () => {
    const store = openStore(path.join(temp(), 'polar.db'));
    try {
      batch(store, 'b_one', 'http://127.0.0.1:9/hook');
      batch(store, 'b_two');
      const first: TailDecision = { policy: 'carry', reachedAt: 1, completeTaskIds: [1, 2], cancelled: [], carried: [7, 8] };
      expect(store.batches.tailDecision('b_one')).toBeNull();
      expect(store.batches.setTailDecision('b_one', first)).toBe(true);
      expect(store.batches.setTailDecision('b_one', { ...first, policy: 'cancel', cancelled: [7, 8], carried: [] })).toBe(false);
      expect(store.batches.tailDecision('b_one')).toEqual(first);
      expect(store.batches.get('b_one')?.tailDecision).toEqual(first);
      expect(store.batches.tailDecision('b_two')).toBeNull();
      expect(store.batches.tailDecision('b_none')).toBeNull();
      expect(store.batches.callbackUrl('b_one')).toBe('http://127.0.0.1:9/hook');
      expect(store.batches.callbackUrl('b_two')).toBeNull();
      expect(store.batches.callbackUrl('b_none')).toBeNull();
    } finally {
      store.close();
    }
  });
});
