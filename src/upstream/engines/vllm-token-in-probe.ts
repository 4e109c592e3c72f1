// Whether token-in works on a vLLM server: /tokenize with messages renders the probe conversation (tools
// included) into the ids the chat endpoint gave, and /v1/completions with those ids and return_token_ids
// answers the sampled ids with one logprob each (vLLM >= 0.10.2; a proxy in front of vLLM may hide either).
import { probeJson } from '../preflight/probe-http.js';
import { PROBE_TOOL_MESSAGES, PROBE_TOOLS } from '../preflight/probe-requests.js';
import type { CompletionWire } from './completion-to-chat.js';
import type { TokenInProbe } from './sglang-probes.js';

/** `chatPromptIds`: the chat probe's prompt ids for the same conversation with tools (null: not comparable). */
export async function probeVllmTokenIn(root: URL, base: URL, model: string, chatPromptIds: readonly number[] | null, signal: AbortSignal): Promise<TokenInProbe> {
  const rendered = await probeJson(new URL('tokenize', root), signal, { model, messages: PROBE_TOOL_MESSAGES, tools: PROBE_TOOLS, add_generation_prompt: true });
  const tokens = (rendered.json as { tokens?: unknown } | undefined)?.tokens;
  if (rendered.status !== 200 || !Array.isArray(tokens) || tokens.length === 0 || !tokens.every((id) => Number.isInteger(id))) {
    return { ok: false, why: `/tokenize does not render chat messages (answered ${rendered.status})` };
  }
  const promptIds = tokens as number[];
  if (chatPromptIds !== null && (chatPromptIds.length !== promptIds.length || chatPromptIds.some((id, i) => id !== promptIds[i]))) {
    return { ok: false, why: `/tokenize renders the probe conversation into ${promptIds.length} ids, the chat endpoint into ${chatPromptIds.length} different ones` };
  }
  const completed = await probeJson(new URL('completions', base), signal, {
    model,
    prompt: promptIds,
    max_tokens: 8,
    temperature: 1,
    top_p: 1,
    top_k: -1,
    logprobs: 0,
    return_token_ids: true,
    stream: false,
  });
  const choice = (completed.json as Partial<CompletionWire> | undefined)?.choices?.[0];
  const ids = choice?.token_ids;
  const logprobs = choice?.logprobs?.token_logprobs;
  if (completed.status !== 200 || !Array.isArray(ids) || ids.length === 0 || !Array.isArray(logprobs) || logprobs.length !== ids.length) {
    return { ok: false, why: `/v1/completions with a token-id prompt answered ${completed.status} without token_ids and one logprob each` };
  }
  return { ok: true, promptIds };
}
