// Decides the model name sent upstream: the configured one, else the first model vLLM serves.
import type { UpstreamClient } from '../upstream/upstream-client.js';

export type UpstreamModelResolver = (signal: AbortSignal) => Promise<string>;

/** Caches a successful lookup; a failed one is retried on the next call. */
export function createUpstreamModelResolver(upstream: UpstreamClient, configured?: string): UpstreamModelResolver {
  let cached: string | undefined = configured;
  return async (signal) => {
    if (cached !== undefined) return cached;
    const list = await upstream.listModels(signal);
    const first = list.data?.[0]?.id;
    if (first === undefined) throw new Error(`upstream ${upstream.baseUrl} lists no models`);
    cached = first;
    return first;
  };
}
