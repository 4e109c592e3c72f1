// End-of-turn ids from the upstream's own tokenizer: the known end-of-turn texts that are one token
// and that the template writes after an assistant turn (ChatML also stops on <|endoftext|>).
import { probeJson } from './probe-http.js';
import { END_OF_TURN_TEXTS } from './probe-requests.js';

export interface DetectedEos {
  ids: number[];
}

/**
 * Empty ids when the server has no `/tokenize` or none of the texts fits. Never throws for HTTP errors.
 * `fallbackRendered`: a template rendering to use when `/tokenize` cannot render messages (older SGLang,
 * whose /tokenize takes text only): the prompt ids of a probe chat answer.
 */
export async function detectEosTokenIds(root: URL, model: string, signal: AbortSignal, fallbackRendered?: readonly number[]): Promise<DetectedEos> {
  const url = new URL('tokenize', root);
  const rendered = await probeJson(url, signal, {
    model,
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ],
    add_generation_prompt: false,
  });
  const renderedIds = tokensOf(rendered) ?? fallbackRendered ?? null;
  if (renderedIds === null) return { ids: [] };
  const single = new Map<string, number>();
  for (const text of END_OF_TURN_TEXTS) {
    const ids = tokensOf(await probeJson(url, signal, { model, prompt: text, add_special_tokens: false }));
    if (ids !== null && ids.length === 1) single.set(text, ids[0] as number);
  }
  const inTemplate = new Set(renderedIds);
  const out: number[] = [];
  for (const [text, id] of single) {
    if (inTemplate.has(id) && text !== '<|endoftext|>') out.push(id);
  }
  // Qwen's generation_config lists <|endoftext|> next to <|im_end|>: vLLM may stop on either.
  const endOfText = single.get('<|endoftext|>');
  if (single.get('<|im_end|>') !== undefined && out.includes(single.get('<|im_end|>') as number) && endOfText !== undefined) out.push(endOfText);
  return { ids: out };
}

function tokensOf(answer: { status: number; json: unknown }): number[] | null {
  const tokens = (answer.json as { tokens?: unknown } | undefined)?.tokens;
  return answer.status === 200 && Array.isArray(tokens) && tokens.every((t) => Number.isInteger(t)) ? (tokens as number[]) : null;
}
