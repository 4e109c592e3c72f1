// Calls: insert a CallRecord (one committed transaction), read calls back fully decoded.
import type Database from 'better-sqlite3';
import type { CallRecord } from '../capture/call-record.js';
import { createCallWriter } from './create-call-writer.js';
import { createCallInserter } from './insert-call.js';
import { createCallReader } from './read-calls.js';
import { createRecentSessionContexts, type RecentSessionContextsOptions, type StoredSessionContext } from './recent-session-contexts.js';
import type { CallRawBytes, ReadCallsOptions, StoredCall, StoredCallWithRaw } from './stored-call.js';

export interface CallRepository {
  /**
   * Commits one call and returns its id. Contract: returns only after the commit; throws DataError
   * for an unknown session and lets SQLite errors (disk full, busy beyond the timeout) propagate.
   */
  insert(record: CallRecord): number;
  /**
   * Commits one call off the event loop and resolves with its id after the commit (same contract as
   * insert). A file store commits in a worker thread that owns a second write connection and batches
   * the calls that arrive together; an in-memory store inserts inline.
   */
  commit(record: CallRecord): Promise<number>;
  /** Starts the commit worker now, so the first call does not wait for it (a no-op in memory). */
  prepareCommits(): void;
  /** Ends the commit worker (Store.close does this). */
  closeCommits(): Promise<void>;
  /** Ends the commit worker now: commits under way are rolled back and rejected. */
  terminateCommits(): void;
  get(id: number, options: { withRaw: true }): StoredCallWithRaw | undefined;
  get(id: number, options?: ReadCallsOptions): StoredCall | undefined;
  /** The session's calls in seq order. */
  listBySession(sessionId: number, options: { withRaw: true }): StoredCallWithRaw[];
  listBySession(sessionId: number, options?: ReadCallsOptions): StoredCall[];
  /** The raw bytes of these calls alone (not every call of their sessions), by id. Throws DataError for an unknown id. */
  rawOf(ids: Iterable<number>): Map<number, CallRawBytes>;
  /** What the newest sessions served by a model reached (last call's prompt + sampled tokens), newest first. */
  recentSessionContexts(options: RecentSessionContextsOptions): StoredSessionContext[];
}

/** `writerPath`: the database file a commit worker may open (undefined: commit inline). */
export function createCallRepository(db: Database.Database, writerPath?: string): CallRepository {
  const reader = createCallReader(db);
  const inserter = createCallInserter(db, reader);
  const writer = writerPath === undefined ? undefined : createCallWriter(writerPath);
  return {
    insert: inserter.one,
    commit(record) {
      if (writer !== undefined) return writer.write(record);
      try {
        return Promise.resolve(inserter.one(record));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
    prepareCommits: () => writer?.start(),
    closeCommits: async () => writer?.close(),
    terminateCommits: () => writer?.terminate(),
    get: reader.get as CallRepository['get'],
    listBySession: reader.listBySession as CallRepository['listBySession'],
    rawOf: reader.rawOf,
    recentSessionContexts: createRecentSessionContexts(db),
  };
}
