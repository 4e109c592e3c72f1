// Opening, migrating, read-only mode, and refusing files that are not (current) polar databases.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DataError, NotFoundError } from '../../src/errors.js';
import { migrateDatabase, POLAR_APPLICATION_ID } from '../../src/store/migrate-database.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { openDatabase, SEQUENTIAL_CACHE_KIB } from '../../src/store/open-database.js';
import { openStore } from '../../src/store/open-store.js';
import { useTempDirs } from './temp-dir.js';

const tempDir = useTempDirs();

/** Inspects a file with a raw connection (tests only; src code goes through the Store). */
function inspect<T>(path: string, read: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

describe('openStore', () => {
  it('creates parent directories and migrates an empty file to the current schema', () => {
    const path = join(tempDir(), 'nested', 'deeper', 'polar.db');
    openStore(path).close();
    expect(existsSync(path)).toBe(true);
    const facts = inspect(path, (db) => ({
      version: db.pragma('user_version', { simple: true }),
      applicationId: db.pragma('application_id', { simple: true }),
      journal: db.pragma('journal_mode', { simple: true }),
      tables: db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all(),
    }));
    expect(facts).toEqual({ version: SCHEMA_VERSION, applicationId: POLAR_APPLICATION_ID, journal: 'wal', tables: ['batch_groups', 'batches', 'calls', 'engine_control_log', 'runs', 'security_events', 'serve_state', 'sessions', 'tasks'] });
  });

  it('reopens idempotently and keeps the data', () => {
    const path = join(tempDir(), 'polar.db');
    const first = openStore(path);
    const session = first.sessions.create({ label: 'kept' });
    first.close();
    first.close();
    for (let i = 0; i < 3; i++) {
      const again = openStore(path);
      expect(again.sessions.get(session.id)).toEqual(session);
      again.close();
    }
    expect(inspect(path, (db) => db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION);
  });

  it('opens read-only without writing, and refuses writes', () => {
    const path = join(tempDir(), 'polar.db');
    const writer = openStore(path);
    const session = writer.sessions.create();
    writer.close();
    const reader = openStore(path, { readonly: true });
    expect(reader.readonly).toBe(true);
    expect(reader.sessions.findByKey(session.key)?.id).toBe(session.id);
    expect(() => reader.sessions.create()).toThrow(/readonly/);
    reader.close();
  });

  it('gives a sequential reader a small page cache and everyone else the default', () => {
    const path = join(tempDir(), 'polar.db');
    openStore(path).close();
    const cacheOf = (options: Parameters<typeof openDatabase>[1]) => {
      const db = openDatabase(path, options);
      try {
        return db.pragma('cache_size', { simple: true });
      } finally {
        db.close();
      }
    };
    expect(cacheOf({ readonly: true, sequential: true })).toBe(-SEQUENTIAL_CACHE_KIB);
    expect(cacheOf({ readonly: true })).toBe(-16000);
    expect(cacheOf({})).toBe(-16000);
  });

  it('works in memory', () => {
    const store = openStore(':memory:');
    expect(store.sessions.create().id).toBe(1);
    store.close();
  });

  it('throws NotFoundError for a read-only open of a missing file', () => {
    expect(() => openStore(join(tempDir(), 'missing.db'), { readonly: true })).toThrow(NotFoundError);
  });

  const foreign: { name: string; make: (path: string) => void; message: RegExp }[] = [
    { name: 'a text file', make: (path) => writeFileSync(path, 'hello, this is not a database at all'.repeat(40)), message: /not an SQLite file/ },
    {
      name: 'another application\u2019s SQLite database',
      make: (path) => {
        const db = new Database(path);
        db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY)');
        db.close();
      },
      message: /not a polar database/,
    },
    {
      name: 'a database from a newer polar',
      make: (path) => {
        openStore(path).close();
        const db = new Database(path);
        db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
        db.close();
      },
      message: /newer than this polar/,
    },
  ];

  it.each(foreign)('refuses $name with a DataError', ({ make, message }) => {
    const path = join(tempDir(), 'other.db');
    make(path);
    expect(() => openStore(path)).toThrow(DataError);
    expect(() => openStore(path)).toThrow(message);
    expect(() => openStore(path, { readonly: true })).toThrow(DataError);
  });

  it('refuses a read-only open of a database that needs migrating', () => {
    const path = join(tempDir(), 'old.db');
    openStore(path).close();
    const db = new Database(path);
    db.pragma('user_version = 0');
    db.close();
    expect(() => openStore(path, { readonly: true })).toThrow(/cannot upgrade it read-only/);
  });
});

describe('migrateDatabase', () => {
  it('applies an appended migration to an existing database and keeps its rows', () => {
    const path = join(tempDir(), 'polar.db');
    const store = openStore(path);
    const session = store.sessions.create({ label: 'before' });
    store.close();
    const next = [...MIGRATIONS, { name: 'extra', sql: 'CREATE TABLE extra (id INTEGER PRIMARY KEY); ALTER TABLE sessions ADD COLUMN extra_id INTEGER REFERENCES extra(id);' }];
    const db = new Database(path);
    migrateDatabase(db, path, next);
    migrateDatabase(db, path, next);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
    expect(db.prepare('SELECT label, extra_id FROM sessions WHERE id = ?').get(session.id)).toEqual({ label: 'before', extra_id: null });
    db.close();
    expect(() => openStore(path)).toThrow(/newer than this polar/);
  });

  it('rolls back a failing migration, leaving the version where it was', () => {
    const path = join(tempDir(), 'polar.db');
    openStore(path).close();
    const broken = [...MIGRATIONS, { name: 'broken', sql: 'CREATE TABLE t (id INTEGER); SELECT * FROM no_such_table;' }];
    const db = new Database(path);
    expect(() => migrateDatabase(db, path, broken)).toThrow(`Migration ${MIGRATIONS.length + 1} (broken) failed`);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 't'").get()).toBeUndefined();
    db.close();
  });
});
