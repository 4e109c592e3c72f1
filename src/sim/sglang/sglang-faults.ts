// The injected faults of the SGLang-mode handlers, by the same rules as the vLLM chat handler: a restart
// after N counted calls, 500s after N, stalls after N. Preflight probes (x-polar-preflight) do not count.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PREFLIGHT_HEADER } from '../sim-behaviour.js';
import { SimHttpError } from '../sim-errors.js';
import { wait, type ResolvedOptions, type SimServerStats } from '../sim-server.js';

/** Counts the request; true when a restart consumed it (the caller returns). */
export function countRequest(req: IncomingMessage, o: ResolvedOptions, stats: SimServerStats): { n: number; counted: boolean; restarted: boolean } {
  stats.requests++;
  const b = o.behaviour;
  const counted = req.headers[PREFLIGHT_HEADER] === undefined;
  const n = counted ? ++stats.counted : 0;
  if (counted && b.restartAfter > 0 && n === b.restartAfter + 1) {
    req.socket.destroy();
    o.restart(b.restartMs);
    return { n, counted, restarted: true };
  }
  return { n, counted, restarted: false };
}

/** After the body was read: throws the 500 of failAfter, or stalls (true: the caller returns). */
export async function failOrStall(res: ServerResponse, o: ResolvedOptions, count: { n: number; counted: boolean }, stream: boolean, signal: AbortSignal): Promise<boolean> {
  const b = o.behaviour;
  if (count.counted && b.failAfter > 0 && count.n > b.failAfter) {
    throw new SimHttpError(500, 'Internal server error: the scheduler is not responding.', 'InternalServerError');
  }
  if (count.counted && b.stallAfter > 0 && count.n > b.stallAfter) {
    if (stream) res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).flushHeaders();
    await wait(b.stallMs > 0 ? b.stallMs : 2 ** 31 - 1, signal);
    res.destroy();
    return true;
  }
  return false;
}

/** An AbortSignal that fires when the client goes away before the answer is complete. */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
