// Calls: insert a CallRecord (one committed transaction), read calls back fully decoded.
import type Database from 'better-sqlite3';
import type { CallRecord } from '../capture/call-record.js';
import { createCallInserter } from './insert-call.js';
import { createCallReader } from './read-calls.js';
import type { ReadCallsOptions, StoredCall, StoredCallWithRaw } from './stored-call.js';

export interface CallRepository {
  /**
   * Commits one call and returns its id. Contract: returns only after the commit; throws DataError
   * for an unknown session and lets SQLite errors (disk full, busy beyond the timeout) propagate.
   */
  insert(record: CallRecord): number;
  get(id: number, options: { withRaw: true }): StoredCallWithRaw | undefined;
  get(id: number, options?: ReadCallsOptions): StoredCall | undefined;
  /** The session's calls in seq order. */
  listBySession(sessionId: number, options: { withRaw: true }): StoredCallWithRaw[];
  listBySession(sessionId: number, options?: ReadCallsOptions): StoredCall[];
}

export function createCallRepository(db: Database.Database): CallRepository {
  const reader = createCallReader(db);
  const insert = createCallInserter(db, reader);
  return {
    insert,
    get: reader.get as CallRepository['get'],
    listBySession: reader.listBySession as CallRepository['listBySession'],
  };
}
