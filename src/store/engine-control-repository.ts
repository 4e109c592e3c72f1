// The engine control log of `polar serve` (every pause, resume, sleep, wake and weight update sent to an engine
// replica, in order) and its current control state, so a restarted server knows the engines are paused or asleep.
import type Database from 'better-sqlite3';

/** One control request to one replica, as it completed. */
export interface EngineControlEntry {
  /** Epoch ms. */
  at: number;
  action: string;
  replica: string;
  ok: boolean;
  detail: string | null;
  mode?: string;
  level?: number;
  weightsKind?: string;
  version?: number;
}

export interface StoredEngineControlEntry extends EngineControlEntry {
  seq: number;
}

export interface EngineControlRepository {
  append(entry: EngineControlEntry): number;
  /** The last `limit` entries (default all), oldest first. */
  list(limit?: number): StoredEngineControlEntry[];
  /** The control state last saved (JSON object), or undefined. */
  state(): Record<string, unknown> | undefined;
  saveState(state: Record<string, unknown>): void;
}

interface EntryRow {
  seq: number;
  at: number;
  action: string;
  replica: string;
  ok: number;
  detail: string | null;
  mode: string | null;
  level: number | null;
  weights_kind: string | null;
  version: number | null;
}

export function createEngineControlRepository(db: Database.Database): EngineControlRepository {
  const insert = db.prepare('INSERT INTO engine_control_log (at, action, replica, ok, detail, mode, level, weights_kind, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const last = db.prepare('SELECT * FROM (SELECT * FROM engine_control_log ORDER BY seq DESC LIMIT ?) ORDER BY seq');
  const readState = db.prepare<[string], { value: string }>('SELECT value FROM serve_state WHERE key = ?');
  const writeState = db.prepare('INSERT INTO serve_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  return {
    append(entry) {
      return Number(insert.run(entry.at, entry.action, entry.replica, entry.ok ? 1 : 0, entry.detail, entry.mode ?? null, entry.level ?? null, entry.weightsKind ?? null, entry.version ?? null).lastInsertRowid);
    },
    list(limit = -1) {
      return (last.all(limit) as EntryRow[]).map((row) => ({
        seq: row.seq,
        at: row.at,
        action: row.action,
        replica: row.replica,
        ok: row.ok === 1,
        detail: row.detail,
        ...(row.mode !== null ? { mode: row.mode } : {}),
        ...(row.level !== null ? { level: row.level } : {}),
        ...(row.weights_kind !== null ? { weightsKind: row.weights_kind } : {}),
        ...(row.version !== null ? { version: row.version } : {}),
      }));
    },
    state() {
      const row = readState.get('engine_control');
      return row === undefined ? undefined : (JSON.parse(row.value) as Record<string, unknown>);
    },
    saveState(state) {
      writeState.run('engine_control', JSON.stringify(state));
    },
  };
}
