// The SGLang-only probes of a preflight: server and model info, the router's workers, and whether token-in
// works (/tokenize renders messages like the chat endpoint does, /generate answers ids and logprobs).
import type { ToolFormat } from '../../model-format/format-types.js';
import { PROBE_HEADERS, probeJson } from '../preflight/probe-http.js';
import { getJsonObject } from './get-json-object.js';
import { PROBE_TOOL_MESSAGES, PROBE_TOOLS } from '../preflight/probe-requests.js';
import type { SglangGenerateWire, SglangModelInfoWire, SglangServerInfoWire, SglangWorkersWire } from './sglang-api-types.js';

/** SGLang's `--tool-call-parser` names (function_call_parser.py ToolCallParserEnum) that write polar's formats. */
const TOOL_FORMAT_OF_PARSER: Readonly<Record<string, ToolFormat>> = { qwen: 'hermes', qwen25: 'hermes', hermes: 'hermes', qwen3_coder: 'qwen3_coder' };

/** The format token-in output is parsed with for a server's tool-call parser, when polar knows it. */
export function toolFormatOfParser(parser: string | null | undefined): ToolFormat | undefined {
  return parser ? TOOL_FORMAT_OF_PARSER[parser] : undefined;
}

/** An informational GET of the preflight, bounded to 5 s. */
async function getJson<T>(root: URL, path: string, signal: AbortSignal): Promise<T | undefined> {
  return (await getJsonObject(new URL(path, root), AbortSignal.any([signal, AbortSignal.timeout(5_000)]), PROBE_HEADERS)) as T | undefined;
}

/** `/get_server_info` and `/get_model_info`, each undefined when it does not answer. */
export async function readSglangInfo(root: URL, signal: AbortSignal): Promise<{ server?: SglangServerInfoWire; model?: SglangModelInfoWire }> {
  const [server, model] = await Promise.all([getJson<SglangServerInfoWire>(root, 'get_server_info', signal), getJson<SglangModelInfoWire>(root, 'get_model_info', signal)]);
  return { ...(server ? { server } : {}), ...(model ? { model } : {}) };
}

export interface RouterWorkers {
  urls: string[];
  /** Workers the router reports healthy (all of them when it does not say). */
  healthy: number;
}

/** The workers behind SGLang's router (`GET /workers`, older `GET /list_workers`); undefined for a plain server. */
export async function readRouterWorkers(root: URL, signal: AbortSignal): Promise<RouterWorkers | undefined> {
  const current = await getJson<SglangWorkersWire>(root, 'workers', signal);
  if (Array.isArray(current?.workers)) {
    const workers = current.workers.filter((worker) => typeof worker?.url === 'string');
    return { urls: workers.map((worker) => worker.url), healthy: workers.filter((worker) => worker.is_healthy !== false).length };
  }
  const older = await getJson<SglangWorkersWire>(root, 'list_workers', signal);
  if (Array.isArray(older?.urls)) return { urls: older.urls.filter((url) => typeof url === 'string'), healthy: older.urls.length };
  return undefined;
}

export type TokenInProbe = { ok: true; promptIds: number[] } | { ok: false; why: string };

/**
 * Token-in on SGLang: `/tokenize` with messages renders the probe conversation (tools included) into the
 * same ids the chat endpoint gave (`chatPromptIds`, when it gave any), and `/generate` with those ids
 * answers output ids with one logprob each.
 */
export async function probeSglangTokenIn(root: URL, model: string, chatPromptIds: readonly number[] | null, signal: AbortSignal): Promise<TokenInProbe> {
  const rendered = await probeJson(new URL('tokenize', root), signal, { model, messages: PROBE_TOOL_MESSAGES, tools: PROBE_TOOLS, add_generation_prompt: true });
  const tokens = (rendered.json as { tokens?: unknown } | undefined)?.tokens;
  if (rendered.status === 404) return { ok: false, why: 'the server has no /tokenize route (answered 404)' };
  if (rendered.status !== 200 || !Array.isArray(tokens) || tokens.length === 0 || !tokens.every((id) => Number.isInteger(id))) {
    return { ok: false, why: `/tokenize does not render chat messages (answered ${rendered.status}; older SGLang tokenizes text only)` };
  }
  const promptIds = tokens as number[];
  if (chatPromptIds !== null && (chatPromptIds.length !== promptIds.length || chatPromptIds.some((id, i) => id !== promptIds[i]))) {
    return { ok: false, why: `/tokenize renders the probe conversation into ${promptIds.length} ids, the chat endpoint into ${chatPromptIds.length} different ones` };
  }
  const generated = await probeJson(new URL('generate', root), signal, {
    input_ids: promptIds,
    sampling_params: { max_new_tokens: 8, temperature: 1, top_p: 1, top_k: -1 },
    return_logprob: true,
    logprob_start_len: -1,
    stream: false,
  });
  const answer = generated.json as SglangGenerateWire | undefined;
  const ids = answer?.output_ids ?? answer?.meta_info?.output_token_logprobs?.map((entry) => entry[1]);
  const logprobs = answer?.meta_info?.output_token_logprobs;
  if (generated.status !== 200 || !Array.isArray(ids) || !Array.isArray(logprobs) || logprobs.length !== ids.length) {
    return { ok: false, why: `/generate with input_ids answered ${generated.status} without output ids and one logprob each` };
  }
  return { ok: true, promptIds };
}
