// The Store: polar's SQLite database behind repositories, so no other module sees better-sqlite3.
import { createBatchRepository, type BatchRepository } from './batch-repository.js';
import { createCallRepository, type CallRepository } from './call-repository.js';
import { createEngineControlRepository, type EngineControlRepository } from './engine-control-repository.js';
import type Database from 'better-sqlite3';
import { openDatabase } from './open-database.js';
import { createStatsReader, type StoreStats, type StoreStatsOptions } from './read-store-stats.js';
import { createRunRepository, type RunRepository } from './run-repository.js';
import { createSecurityEventRepository, type SecurityEventRepository } from './security-event-repository.js';
import { createSessionRepository, type SessionRepository } from './session-repository.js';

export interface Store {
  /** The database file (or `:memory:`). */
  readonly path: string;
  readonly readonly: boolean;
  readonly sessions: SessionRepository;
  readonly calls: CallRepository;
  readonly runs: RunRepository;
  readonly securityEvents: SecurityEventRepository;
  /** Batches of `polar serve` and their completed groups. */
  readonly batches: BatchRepository;
  /** `polar serve`'s engine control log and state (pauses, sleeps, weight updates sent to the engines). */
  readonly engineControl: EngineControlRepository;
  stats(options?: StoreStatsOptions): StoreStats;
  /** Closes the database (and ends the commit worker, rolling back commits under way); the store must not be used afterwards. Idempotent. */
  close(): void;
}

export interface OpenStoreOptions {
  /** Open without writing: no directory creation, no migrations; the schema must be current. */
  readonly?: boolean;
  /** One sequential pass (export, runs show): a smaller page cache (see OpenDatabaseOptions). */
  sequential?: boolean;
}

/**
 * Opens or creates polar's database at `path` (parent directories are created) and migrates it.
 * Throws DataError when the file is not a polar database or was written by a newer polar, and
 * NotFoundError when a read-only open finds no file.
 */
export function openStore(path: string, options: OpenStoreOptions = {}): Store {
  const readonly = options.readonly ?? false;
  return storeOver(openDatabase(path, { readonly, sequential: options.sequential ?? false }), path, readonly);
}

/** The repositories over an open database handle (the viewer adds its own queries over the same handle). */
export function storeOver(db: Database.Database, path: string, readonly: boolean): Store {
  const calls = createCallRepository(db, readonly || path === ':memory:' || path === '' ? undefined : path);
  return {
    path,
    readonly,
    sessions: createSessionRepository(db),
    calls,
    runs: createRunRepository(db),
    securityEvents: createSecurityEventRepository(db),
    batches: createBatchRepository(db),
    engineControl: createEngineControlRepository(db),
    stats: createStatsReader(db),
    close() {
      calls.terminateCommits();
      if (db.open) db.close();
    },
  };
}
