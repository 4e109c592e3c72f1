// The simulated time an SGLang-mode answer takes: one small function, the same formula as the vLLM
// handlers' (time to first token, then per token), so a step-driven engine can replace both at once.
import { wait, type ResolvedOptions } from '../sim-server.js';

/**
 * Waits as long as `tokens` sampled tokens take: the first chunk (or a whole non-streaming answer) pays
 * the time to first token. Resolves false when the client left.
 */
export function paceTokens(o: ResolvedOptions, tokens: number, first: boolean, signal: AbortSignal): Promise<boolean> {
  const ms = tokens === 0 ? 0 : first ? o.firstTokenMs + o.perTokenMs * (tokens - 1) : o.perTokenMs * tokens;
  return wait(ms, signal);
}
