// Writing simulator responses: JSON bodies, and SSE writes that respect back-pressure and a client that left.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Writes `data`, waiting for 'drain' when the socket buffer is full; false when the client has gone. */
export async function writeOrStop(res: ServerResponse, data: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (res.write(data)) return true;
  try {
    await once(res, 'drain', { signal });
    return true;
  } catch {
    return false;
  }
}

/** An AbortSignal that fires when the client goes away before the response is complete. */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
