// Brings a database to SCHEMA_VERSION, refusing files that are not polar's or are from a newer polar.
import type Database from 'better-sqlite3';
import { DataError } from '../errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';

/** `PRAGMA application_id` of every polar database: "polr" in ASCII. */
export const POLAR_APPLICATION_ID = 0x706f6c72;

function readVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function readApplicationId(db: Database.Database): number {
  return db.pragma('application_id', { simple: true }) as number;
}

function hasTables(db: Database.Database): boolean {
  return db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get() !== undefined;
}

/**
 * Throws DataError unless the file is empty, or polar's with a schema no newer than `known` steps.
 * Returns its user_version.
 */
export function checkDatabaseIdentity(db: Database.Database, path: string, known: number = MIGRATIONS.length): number {
  const applicationId = readApplicationId(db);
  const version = readVersion(db);
  const fresh = applicationId === 0 && version === 0 && !hasTables(db);
  if (!fresh && applicationId !== POLAR_APPLICATION_ID) {
    throw new DataError(
      `${path} is an SQLite database but not a polar database (application_id ${applicationId}).`,
      'Point polar at its own database file (or a path that does not exist yet).',
    );
  }
  if (version > known) {
    throw new DataError(
      `${path} has schema version ${version}, newer than this polar understands (${known}).`,
      'Upgrade polar to open this database.',
    );
  }
  return version;
}

/**
 * Applies the missing migrations, each in its own IMMEDIATE transaction that re-reads user_version,
 * so two processes opening a new file at once apply every step exactly once.
 */
export function migrateDatabase(db: Database.Database, path: string, migrations: readonly Migration[] = MIGRATIONS): void {
  checkDatabaseIdentity(db, path, migrations.length);
  migrations.forEach((migration, index) => {
    const target = index + 1;
    const step = db.transaction(() => {
      if (checkDatabaseIdentity(db, path, migrations.length) >= target) return;
      try {
        db.exec(migration.sql);
      } catch (cause) {
        throw new DataError(`Migration ${target} (${migration.name}) failed on ${path}.`, 'This is a bug in polar or a damaged database.', { cause });
      }
      db.pragma(`application_id = ${POLAR_APPLICATION_ID}`);
      db.pragma(`user_version = ${target}`);
    });
    step.immediate();
  });
}
