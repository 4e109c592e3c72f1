// Finds the session key a client sent as its API key, in any provider's convention.
import type { IncomingHttpHeaders } from 'node:http';

/** `Authorization: Bearer`, `x-api-key`, `x-goog-api-key`, then `?key=`; undefined when none. */
export function extractApiKey(headers: IncomingHttpHeaders, url: URL): string | undefined {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match?.[1]) return match[1].trim();
  }
  for (const name of ['x-api-key', 'x-goog-api-key'] as const) {
    const value = headers[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  const fromQuery = url.searchParams.get('key');
  return fromQuery && fromQuery.trim() !== '' ? fromQuery.trim() : undefined;
}
