// Decides the model name sent upstream: the configured one, else the only model vLLM serves.
import { ConfigError } from '../errors.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';

export type UpstreamModelResolver = (signal: AbortSignal) => Promise<string>;

/**
 * Caches a successful lookup; a failed one is retried on the next call. Never guesses: an upstream
 * that lists several models and none configured is a ConfigError naming them (the gateway answers
 * such calls with an error instead of sampling an arbitrary policy).
 */
export function createUpstreamModelResolver(client: UpstreamClient | (() => UpstreamClient), configured?: string): UpstreamModelResolver {
  let cached: string | undefined = configured;
  return async (signal) => {
    if (cached !== undefined) return cached;
    const upstream = typeof client === 'function' ? client() : client;
    const list = await upstream.listModels(signal);
    const ids = (list.data ?? []).map((card) => card.id);
    if (ids.length === 0) throw new ConfigError(`upstream ${upstream.baseUrl} lists no models`, 'Check the model server.');
    if (ids.length > 1) {
      throw new ConfigError(
        `upstream ${upstream.baseUrl} serves ${ids.length} models (${ids.join(', ')}) and none was named`,
        'Pass --model <name>.',
      );
    }
    cached = ids[0] as string;
    return cached;
  };
}
