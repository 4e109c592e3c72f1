// The viewer's store: the database opened read-only (no migrations, no writes), with the view queries beside the repositories.
import type { Migration } from './migrations.js';
import { openDatabase } from './open-database.js';
import { type Store, storeOver } from './open-store.js';
import { createViewRunQueries, type ViewRunQueries } from './view-run-queries.js';
import { createViewSessionQueries, type ViewSessionQueries } from './view-session-queries.js';
import { createSessionTokenReader, type SessionTokenReader } from './view-session-tokens.js';

/** True when the migrations a file lacks only add indexes: the viewer reads it as is, only slower. */
export function onlyIndexes(missing: readonly Migration[]): boolean {
  return missing.every((migration) =>
    migration.sql
      .replace(/--[^\n]*/g, '')
      .split(';')
      .map((statement) => statement.trim())
      .every((statement) => statement === '' || /^CREATE\s+(UNIQUE\s+)?INDEX\b/i.test(statement)),
  );
}

export interface ViewStore {
  /** The repositories over the same read-only handle: any write through them fails (SQLITE_READONLY). */
  readonly store: Store;
  readonly runs: ViewRunQueries;
  readonly sessions: ViewSessionQueries;
  /** A session's calls with token arrays, each decoded once (the token view's fast path). */
  readonly tokens: SessionTokenReader;
  close(): void;
}

/**
 * Opens polar's database read-only, so it can sit next to a live rollout: in WAL mode readers never block
 * the writer, and every read here is one short statement or transaction (no read transaction is held open).
 * Throws NotFoundError when the file does not exist and DataError for a foreign or outdated file.
 */
export function openViewStore(path: string): ViewStore {
  const db = openDatabase(path, { readonly: true, acceptsMissing: onlyIndexes });
  const store = storeOver(db, path, true);
  const tokens = createSessionTokenReader(db, (id) => store.calls.get(id));
  return { store, runs: createViewRunQueries(db), sessions: createViewSessionQueries(db), tokens, close: store.close };
}
