// Small field readers for JSON records that throw DataErrors naming the record and the field.
import { DataError } from '../../errors.js';

/** A JSON object as read from a dataset or predictions file. */
export type JsonObject = Readonly<Record<string, unknown>>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 40))}` : `a ${typeof value}`;
}

export function fieldError(where: string, field: string, problem: string, hint?: string): DataError {
  return new DataError(`${where}: field "${field}" ${problem}.`, hint);
}

/** A required string field. */
export function requireString(object: JsonObject, field: string, where: string): string {
  const value = object[field];
  if (typeof value === 'string') return value;
  if (value === undefined) throw fieldError(where, field, 'is missing');
  throw fieldError(where, field, `must be a string, got ${describeJson(value)}`);
}

/** An optional string field; null counts as absent (HF exports write null for empty cells). */
export function optionalString(object: JsonObject, field: string, where: string): string | undefined {
  const value = object[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  throw fieldError(where, field, `must be a string, got ${describeJson(value)}`);
}

/** An optional list of strings. */
export function optionalStringList(object: JsonObject, field: string, where: string): string[] | undefined {
  const value = object[field];
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value) && value.every((item): item is string => typeof item === 'string')) return [...value];
  throw fieldError(where, field, `must be a list of strings, got ${describeJson(value)}`);
}
