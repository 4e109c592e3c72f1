// The gateway's CallRecorder over a Store: session lookup by API key with a cache, calls committed off the event loop.
import type { CallRecorder, SessionRef } from '../capture/call-record.js';
import type { Store } from './open-store.js';

/** Known keys kept in memory; beyond this the oldest are dropped (and looked up again if used). */
const SESSION_CACHE_SIZE = 4096;

export interface StoreRecorderOptions {
  /**
   * The gateway's upstream is polar's simulator: every session it serves is marked simulated in
   * the store (so exports flag its trajectories) and reported as simulated. Default false.
   */
  simulated?: boolean;
}

/**
 * Contract: findSession answers known keys from memory and asks the database on a miss, so a key
 * created a moment ago by another process (`polar sessions new`) is found. Misses are not cached.
 * recordCall resolves only after the call has been committed; the commit runs in the store's commit
 * worker (started here), off the gateway's event loop.
 */
export function createStoreRecorder(store: Store, options: StoreRecorderOptions = {}): CallRecorder {
  const simulatedUpstream = options.simulated === true;
  const sessions = new Map<string, SessionRef>();
  store.calls.prepareCommits();
  return {
    findSession(key) {
      const cached = sessions.get(key);
      if (cached !== undefined) return cached;
      const row = store.sessions.findByKey(key);
      if (row === undefined) return undefined;
      if (simulatedUpstream && !row.simulated) store.sessions.markSimulated(row.id);
      const ref: SessionRef = { id: row.id, key: row.key, simulated: row.simulated || simulatedUpstream };
      if (sessions.size >= SESSION_CACHE_SIZE) sessions.delete(sessions.keys().next().value as string);
      sessions.set(key, ref);
      return ref;
    },
    recordCall(record) {
      return store.calls.commit(record);
    },
    recordSecurityEvent(event) {
      store.securityEvents.insert(event);
    },
  };
}
