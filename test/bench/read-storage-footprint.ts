// What polar stored for a benchmark run: file sizes, blob bytes, captured tokens and call outcomes.
import { existsSync, statSync } from 'node:fs';
import { openStore } from '../../src/store/open-store.js';

export interface StorageFootprint {
  calls: number;
  /** Calls whose capture is training data (status ok). */
  okCalls: number;
  promptTokens: number;
  sampledTokens: number;
  /** Database file plus WAL, as measured when `fileBytes` was taken. */
  fileBytes: number;
  tokenBlobBytes: number;
  rawBlobBytes: number;
}

/** Size of the database file plus its `-wal` file (0 for a missing file). */
export function databaseFileBytes(dbPath: string): number {
  return [dbPath, `${dbPath}-wal`].reduce((sum, file) => sum + (existsSync(file) ? statSync(file).size : 0), 0);
}

/** Reads the totals; `fileBytes` is taken before opening (opening can create or replay a WAL). */
export function readStorageFootprint(dbPath: string): StorageFootprint {
  const fileBytes = databaseFileBytes(dbPath);
  const store = openStore(dbPath);
  try {
    const stats = store.stats();
    const okCalls = store.sessions.list().reduce((sum, session) => sum + session.statusCounts.ok, 0);
    return {
      calls: stats.calls,
      okCalls,
      promptTokens: stats.promptTokens,
      sampledTokens: stats.sampledTokens,
      fileBytes,
      tokenBlobBytes: stats.tokenBlobBytes,
      rawBlobBytes: stats.rawBlobBytes,
    };
  } finally {
    store.close();
  }
}
