// Opens the SQLite file with polar's pragmas and schema; the one place that constructs a Database.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { DataError, NotFoundError, PolarError } from '../errors.js';
import { checkDatabaseIdentity, migrateDatabase } from './migrate-database.js';
import { MIGRATIONS, SCHEMA_VERSION, type Migration } from './migrations.js';

/** How long a statement waits for another process's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export interface OpenDatabaseOptions {
  /** Open without writing: no directory creation, no migrations; the schema must be current. */
  readonly?: boolean;
  /**
   * One sequential pass over a run (export, runs show): a 4 MiB page cache instead of better-sqlite3's
   * 16 MiB default (SQLITE_DEFAULT_CACHE_SIZE=-16000), since each page is read about once.
   */
  sequential?: boolean;
  /**
   * Read-only only: accepts a schema this many migrations behind when the caller says it copes with what
   * they add (the viewer, for index-only migrations). Default: the schema must be current.
   */
  acceptsMissing?: (missing: readonly Migration[]) => boolean;
}

/** Page cache of a sequential reader, KiB. */
export const SEQUENTIAL_CACHE_KIB = 4096;

function isMemory(path: string): boolean {
  return path === ':memory:' || path === '';
}

function configure(db: Database.Database, readonly: boolean, sequential: boolean): void {
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('foreign_keys = ON');
  if (sequential) db.pragma(`cache_size = -${SEQUENTIAL_CACHE_KIB}`);
  if (readonly) return;
  db.pragma('journal_mode = WAL');
  // In WAL mode, synchronous=NORMAL writes each commit to the WAL file before the transaction
  // returns and fsyncs only at checkpoints. A killed process (SIGKILL, crash, OOM) therefore loses
  // nothing committed: the bytes are in the OS page cache and the next open replays the WAL. Only a
  // power loss or kernel crash can roll back the last commits, and even then the file stays
  // consistent (https://www.sqlite.org/pragma.html#pragma_synchronous).
  db.pragma('synchronous = NORMAL');
}

function openOrThrow(path: string, readonly: boolean): Database.Database {
  if (!isMemory(path)) {
    if (readonly && !existsSync(path)) {
      throw new NotFoundError(`No polar database at ${path}.`, 'Check the path, or run a polar command that records data first.');
    }
    if (!readonly) mkdirSync(dirname(path), { recursive: true });
  }
  return new Database(path, { readonly, fileMustExist: readonly });
}

function setUp(db: Database.Database, path: string, readonly: boolean, sequential: boolean, acceptsMissing?: (missing: readonly Migration[]) => boolean): void {
  configure(db, readonly, sequential);
  if (!readonly) {
    migrateDatabase(db, path);
    return;
  }
  const version = checkDatabaseIdentity(db, path);
  if (version < SCHEMA_VERSION && acceptsMissing?.(MIGRATIONS.slice(version)) !== true) {
    throw new DataError(
      `${path} has schema version ${version}; this polar needs ${SCHEMA_VERSION} and cannot upgrade it read-only.`,
      'Open it once without read-only mode (any polar command that writes) to upgrade it.',
    );
  }
}

function toPolarError(error: unknown, path: string): PolarError {
  if (error instanceof PolarError) return error;
  if (error instanceof Database.SqliteError && error.code === 'SQLITE_NOTADB') {
    return new DataError(`${path} is not a polar database (not an SQLite file).`, 'Point polar at its own database file.', { cause: error });
  }
  return new DataError(`Cannot open the polar database ${path}: ${String(error)}`, 'Check that the path is a readable, writable file.', { cause: error });
}

/** Opens (creating parent directories) and migrates. Throws DataError for a foreign or newer file. */
export function openDatabase(path: string, options: OpenDatabaseOptions = {}): Database.Database {
  const readonly = options.readonly ?? false;
  let db: Database.Database;
  try {
    db = openOrThrow(path, readonly);
  } catch (error) {
    throw toPolarError(error, path);
  }
  try {
    setUp(db, path, readonly, options.sequential ?? false, options.acceptsMissing);
    return db;
  } catch (error) {
    db.close();
    throw toPolarError(error, path);
  }
}
