// A JSON value read as an object, for walking an engine's answers (`asObject(asObject(doc)?.['paths'])`).
import { isJsonObject } from '../../providers/tool-arguments.js';

export type JsonObject = Record<string, unknown>;

/** `value` when it is a JSON object (not null, not an array), else undefined. */
export function asObject(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}
