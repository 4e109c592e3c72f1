// A small JSON file of polar's own in its cache dir ($POLAR_HOME): read against its schema (absent = undefined; a
// file that is not ours is a ConfigError naming the fix), written whole to a temporary file and renamed into place,
// so a reader never sees half a file.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';

export interface CacheJsonFile<T> {
  /** What the file holds, for messages ("the engine calibrations"). */
  what: string;
  schema: z.ZodType<T>;
  /** How to recover from a file that is not ours (it is never overwritten silently). */
  notOursHint: string;
}

/** The file's content, or undefined when it does not exist. Throws ConfigError when it cannot be read or is not ours. */
export function readCacheJson<T>(file: string, spec: CacheJsonFile<T>): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read ${spec.what} in ${file}: ${(error as Error).message}`, "Check the file permissions of polar's cache dir ($POLAR_HOME).");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = spec.schema.safeParse(json);
  if (!parsed.success) throw new ConfigError(`${file} is not polar's file of ${spec.what}`, spec.notOursHint);
  return parsed.data;
}

/** Writes `value` whole (pretty JSON), through a temporary file renamed into place. */
export function writeCacheJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temporary, file);
}
