// The routes a FastAPI server (vLLM, SGLang) registered, read from its `/openapi.json` without side effects:
// which control routes exist (they are registered only with their start-up flags) and a parameter's enum
// (vLLM /pause's `mode`, SGLang /pause_generation's body `mode`).
import { asObject, type JsonObject as Json } from './as-object.js';
import { getJsonObject } from './get-json-object.js';

export interface OpenapiRoutes {
  paths: ReadonlySet<string>;
  /** The enum of query parameter `name` of `POST path`, undefined when the document does not list one. */
  queryEnum(path: string, name: string): string[] | undefined;
  /** The enum of JSON body field `name` of `POST path` (through a $ref), undefined when none is listed. */
  bodyEnum(path: string, name: string): string[] | undefined;
}

function enumOf(schema: unknown, doc: Json): string[] | undefined {
  let node = asObject(schema);
  const ref = node?.['$ref'];
  if (typeof ref === 'string' && ref.startsWith('#/')) node = asObject(ref.slice(2).split('/').reduce<unknown>((at, key) => asObject(at)?.[key], doc));
  const values = node?.['enum'];
  if (Array.isArray(values)) return values.filter((value): value is string => typeof value === 'string');
  // Literal types may come as anyOf/allOf of one referenced enum.
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const parts = node?.[key];
    if (Array.isArray(parts)) for (const part of parts) {
      const found = enumOf(part, doc);
      if (found) return found;
    }
  }
  return undefined;
}

/** Undefined when the server serves no OpenAPI document (disabled, or not FastAPI). */
export async function readOpenapiRoutes(root: URL, signal: AbortSignal): Promise<OpenapiRoutes | undefined> {
  const doc = await getJsonObject(new URL('openapi.json', root), signal);
  const paths = asObject(doc?.['paths']);
  if (doc === undefined || paths === undefined) return undefined;
  const post = (path: string): Json | undefined => asObject(asObject(paths[path])?.['post']);
  return {
    paths: new Set(Object.keys(paths)),
    queryEnum(path, name) {
      const parameters = post(path)?.['parameters'];
      if (!Array.isArray(parameters)) return undefined;
      const parameter = parameters.map(asObject).find((p) => p?.['name'] === name && p?.['in'] === 'query');
      return parameter === undefined ? undefined : enumOf(parameter['schema'], doc);
    },
    bodyEnum(path, name) {
      const schema = asObject(asObject(asObject(post(path)?.['requestBody'])?.['content'])?.['application/json'])?.['schema'];
      let node = asObject(schema);
      const ref = node?.['$ref'];
      if (typeof ref === 'string' && ref.startsWith('#/')) node = asObject(ref.slice(2).split('/').reduce<unknown>((at, key) => asObject(at)?.[key], doc));
      const field = asObject(node?.['properties'])?.[name];
      return field === undefined ? undefined : enumOf(field, doc);
    },
  };
}
