// Google's REST API accepts proto field names in snake_case as well as camelCase (curl examples
// use `system_instruction`, `inline_data`, `function_declarations`); polar accepts both.

/**
 * Values the client owns (function arguments and responses, schemas, labels) are copied verbatim:
 * their keys are data, not field names.
 */
const VERBATIM_FIELDS = new Set([
  'args',
  'response',
  'parameters',
  'parametersJsonSchema',
  'responseSchema',
  'responseJsonSchema',
  'labels',
]);

/**
 * A copy of `value` with snake_case field names turned into camelCase. When both spellings of a
 * field are present, the camelCase one wins (the SDKs send camelCase).
 */
export function normalizeGoogleFieldNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeGoogleFieldNames);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value);
  for (const [key, field] of entries) {
    const name = toCamelCase(key);
    if (name !== key && Object.hasOwn(value, name)) continue;
    out[name] = VERBATIM_FIELDS.has(name) ? field : normalizeGoogleFieldNames(field);
  }
  return out;
}

function toCamelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}
