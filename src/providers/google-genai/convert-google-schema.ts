// Google's OpenAPI-subset `Schema` (function `parameters`) to plain JSON Schema.
import { isJsonObject } from '../tool-arguments.js';

/** Integer fields the proto declares as int64, which JSON carries as strings ("5"). */
const INT64_FIELDS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);

/**
 * Recursively: `type` becomes lower-case (`OBJECT` → `object`; `TYPE_UNSPECIFIED` is dropped, it
 * means "no type"), `nullable: true` becomes a `[type, "null"]` union (kept as is when there is
 * no type to extend), int64 strings become numbers, and `properties` / `items` / `anyOf` are
 * converted in turn. Other keywords (`enum`, `format`, `propertyOrdering`, `example` ...) are kept
 * unchanged: JSON Schema ignores the ones it does not know.
 */
export function convertGoogleSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    switch (key) {
      case 'type':
        if (typeof value !== 'string') out.type = value;
        else if (value.toUpperCase() !== 'TYPE_UNSPECIFIED') out.type = value.toLowerCase();
        break;
      case 'nullable':
        break;
      case 'properties':
        out.properties = isJsonObject(value) ? mapValues(value, convertNode) : value;
        break;
      case 'items':
        out.items = convertNode(value);
        break;
      case 'anyOf':
        out.anyOf = Array.isArray(value) ? value.map(convertNode) : value;
        break;
      default:
        out[key] = INT64_FIELDS.has(key) && typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    }
  }
  if (schema.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else out.nullable = true;
  } else if (schema.nullable !== undefined && schema.nullable !== false) {
    out.nullable = schema.nullable;
  }
  return out;
}

function convertNode(value: unknown): unknown {
  return isJsonObject(value) ? convertGoogleSchema(value) : value;
}

function mapValues(record: Record<string, unknown>, map: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}
