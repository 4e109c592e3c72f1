// The viewer opens read-only, so it cannot add its own indexes: a file that lacks only index migrations is
// read as is (slower), a file that lacks columns is refused with a hint, and a current file has the indexes.
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { openStore } from '../../src/store/open-store.js';
import { onlyIndexes, openViewStore } from '../../src/store/open-view-store.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { useTempDirs } from '../store/temp-dir.js';
import { seedViewRun } from './seed-view-store.js';

const tempDir = useTempDirs();
const VIEW_INDEXES = ['sessions_by_run_status', 'sessions_by_run_reward', 'sessions_by_run_updated'];

function seeded(): string {
  const dbPath = path.join(tempDir(), 'polar.db');
  const writer = openStore(dbPath);
  seedViewRun(writer);
  writer.close();
  return dbPath;
}

function indexNames(dbPath: string): string[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index'").all().map((row) => row.name);
  } finally {
    db.close();
  }
}

describe('openViewStore and the viewer indexes', () => {
  it('a migrated file has the run-page indexes, and the run page query uses one', () => {
    const dbPath = seeded();
    expect(indexNames(dbPath)).toEqual(expect.arrayContaining(VIEW_INDEXES));
    const db = new Database(dbPath, { readonly: true });
    const plan = db.prepare<[], { detail: string }>('EXPLAIN QUERY PLAN SELECT id FROM sessions WHERE run_id = 1 ORDER BY reward DESC LIMIT 50').all();
    db.close();
    expect(plan.map((row) => row.detail).join('\n')).toMatch(/sessions_by_run_reward/);
  });

  it('reads a file that lacks the run-page indexes (and only index migrations) without upgrading it', () => {
    const dbPath = seeded();
    const db = new Database(dbPath);
    for (const name of VIEW_INDEXES) db.exec(`DROP INDEX ${name}`);
    // The file is behind by whatever index-only migrations follow the last one that adds columns (a file
    // behind that one lacks columns and is refused: next test). Later migrations added columns after the
    // run-page indexes (calls.engine), so such a file now carries every column but not these indexes.
    const behind = MIGRATIONS.findLastIndex((migration) => !onlyIndexes([migration])) + 1;
    expect(behind).toBeGreaterThan(MIGRATIONS.findIndex((migration) => migration.name.startsWith('indexes for the viewer')));
    expect(onlyIndexes(MIGRATIONS.slice(behind))).toBe(true);
    db.pragma(`user_version = ${behind}`);
    db.close();
    const view = openViewStore(dbPath);
    try {
      const run = view.runs.getRun('view-run');
      expect(run?.sessions).toBeGreaterThan(0);
      expect(view.runs.sessionPage(run!.id, { sort: 'reward', descending: true, offset: 0, limit: 10 }).total).toBe(run!.sessions);
    } finally {
      view.close();
    }
    expect(indexNames(dbPath)).not.toContain(VIEW_INDEXES[0]);
  });

  it('refuses a file that lacks a migration adding columns, saying how to upgrade it', () => {
    const dbPath = seeded();
    const db = new Database(dbPath);
    const columnsMigration = MIGRATIONS.findLastIndex((migration) => !onlyIndexes([migration]));
    db.pragma(`user_version = ${columnsMigration}`);
    db.close();
    expect(columnsMigration).toBeLessThan(SCHEMA_VERSION);
    expect(() => openViewStore(dbPath)).toThrow(DataError);
    expect(() => openViewStore(dbPath)).toThrow(/cannot upgrade it read-only/);
  });

  it('tells index-only migrations from the rest', () => {
    expect(onlyIndexes([{ name: 'x', sql: '-- note; with a semicolon\nCREATE INDEX a ON t(b);\nCREATE UNIQUE INDEX c ON t(d);' }])).toBe(true);
    expect(onlyIndexes([{ name: 'x', sql: 'CREATE INDEX a ON t(b); ALTER TABLE t ADD COLUMN e TEXT;' }])).toBe(false);
    expect(onlyIndexes([])).toBe(true);
  });
});
