// Parses a TEXT column that holds a JSON object (or NULL); anything else means the database is corrupt.
import { DataError } from '../errors.js';

/** Null for NULL; throws DataError naming `what` when the text is not a JSON object. */
export function parseJsonObject<T extends Record<string, unknown> = Record<string, unknown>>(text: string | null, what: string): T | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DataError(`${what} is not a JSON object in the database.`, 'The database may be corrupt.');
  }
  return value as T;
}
