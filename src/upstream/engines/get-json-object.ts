// GET of an engine's informational route (/get_server_info, /openapi.json, /workers…): its JSON object, or
// undefined when the server does not answer, answers another status, or answers something else.
import { requestJson } from '../request-json.js';
import { asObject, type JsonObject } from './as-object.js';

/** Never throws; `headers` e.g. the preflight's marker. */
export async function getJsonObject(url: URL, signal: AbortSignal, headers?: Readonly<Record<string, string>>): Promise<JsonObject | undefined> {
  try {
    const reply = await requestJson(url, { signal, ...(headers ? { headers } : {}), unreachable: () => new Error(`${url.href} gave no answer`) });
    return reply.status === 200 ? asObject(reply.json) : undefined;
  } catch {
    return undefined;
  }
}
