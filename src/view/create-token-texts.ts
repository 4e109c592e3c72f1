// Token text for the token view: the built-in Qwen3 tokenizer for simulated runs, the upstream's /detokenize
// when configured and reachable, else none (the page shows ids).
import { QWEN_TOKEN_IDS, tokenText } from '../sim/qwen-tokenizer.js';

export type TokenTextSource = 'qwen-builtin' | 'upstream-detokenize' | 'ids';

export interface TokenTexts {
  source: TokenTextSource;
  /** Text per id; absent ids render as their number. */
  texts: Record<number, string>;
  /** Why a better source was not used (shown on the page). */
  note: string;
}

export interface TokenTextOptions {
  /** Base URL of the upstream (vLLM) server, e.g. http://127.0.0.1:8000 (a trailing /v1 is dropped). */
  upstream?: string;
  /** Per-request timeout of /detokenize. */
  timeoutMs?: number;
}

export interface TokenTextResolver {
  /** Loads the built-in tokenizer now (about a second), so the first token view does not wait for it. */
  warmUp(): void;
  textsFor(ids: Iterable<number>, context: { simulated: boolean; model: string | null }): Promise<TokenTexts>;
}

const DETOKENIZE_CONCURRENCY = 16;
/** After a failure the upstream is asked again only after this long, so pages stay fast while it is down. */
const RETRY_UPSTREAM_MS = 30_000;

export function createTokenTexts(options: TokenTextOptions = {}): TokenTextResolver {
  const upstream = options.upstream?.replace(/\/+$/, '').replace(/\/v1$/, '');
  const timeoutMs = options.timeoutMs ?? 5000;
  const upstreamCache = new Map<number, string>();
  /** The built-in tokenizer's text per id (undefined: outside the vocabulary): each id decoded once per process. */
  const builtinCache = new Map<number, string | undefined>();
  /** Why the upstream failed last, and until when it is not asked again. */
  let upstreamDown: { reason: string; until: number } | null = null;

  async function detokenize(id: number, model: string | null): Promise<string> {
    const response = await fetch(`${upstream}/detokenize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tokens: [id], ...(model === null ? {} : { model }) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`/detokenize answered HTTP ${response.status}`);
    const body = (await response.json()) as { prompt?: unknown };
    if (typeof body.prompt !== 'string') throw new Error('/detokenize answered without a prompt string');
    return body.prompt;
  }

  async function fromUpstream(ids: number[], model: string | null): Promise<Record<number, string>> {
    const missing = ids.filter((id) => !upstreamCache.has(id));
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < missing.length) {
        const id = missing[next++] as number;
        upstreamCache.set(id, await detokenize(id, model));
      }
    };
    await Promise.all(Array.from({ length: Math.min(DETOKENIZE_CONCURRENCY, missing.length) }, worker));
    return Object.fromEntries(ids.map((id) => [id, upstreamCache.get(id) ?? String(id)]));
  }

  return {
    warmUp() {
      tokenText(QWEN_TOKEN_IDS.imStart);
    },
    async textsFor(idList, context) {
      const ids = [...new Set(idList)];
      if (context.simulated) {
        const texts: Record<number, string> = {};
        for (const id of ids) {
          if (!builtinCache.has(id)) {
            try {
              builtinCache.set(id, tokenText(id));
            } catch {
              builtinCache.set(id, undefined); // an id outside the vocabulary keeps its number
            }
          }
          const text = builtinCache.get(id);
          if (text !== undefined) texts[id] = text;
        }
        return { source: 'qwen-builtin', texts, note: 'simulated run: token text from the built-in Qwen3 tokenizer' };
      }
      if (upstream === undefined) return { source: 'ids', texts: {}, note: 'no --upstream given: token ids shown (start polar view with --upstream <vLLM URL> for text)' };
      if (upstreamDown !== null && Date.now() < upstreamDown.until) return { source: 'ids', texts: {}, note: `upstream ${upstream} not usable (${upstreamDown.reason}): token ids shown` };
      try {
        return { source: 'upstream-detokenize', texts: await fromUpstream(ids, context.model), note: `token text from ${upstream}/detokenize` };
      } catch (error) {
        upstreamDown = { reason: (error as Error).message, until: Date.now() + RETRY_UPSTREAM_MS };
        return { source: 'ids', texts: {}, note: `upstream ${upstream} not usable (${upstreamDown.reason}): token ids shown` };
      }
    },
  };
}
