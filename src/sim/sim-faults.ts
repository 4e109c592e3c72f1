// The injected faults of the simulator's generating handlers (vLLM chat, SGLang chat and /generate): a
// restart after N counted calls, 500s after N, stalls after N. Preflight probes (x-polar-preflight) do not count.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { PREFLIGHT_HEADER } from './sim-behaviour.js';
import { SimHttpError } from './sim-errors.js';
import type { ResolvedOptions, SimServerStats } from './sim-server.js';

/** The 500 each engine answers when its scheduler is gone (failAfter). */
export interface EngineFailure {
  message: string;
  type: string;
}

export const VLLM_ENGINE_DEAD: EngineFailure = { message: 'EngineCore encountered an issue. See stack trace (above) for the root cause.', type: 'EngineDeadError' };
export const SGLANG_SCHEDULER_DEAD: EngineFailure = { message: 'Internal server error: the scheduler is not responding.', type: 'InternalServerError' };

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

/** After the body was read: throws the engine's 500 of failAfter, or stalls (true: the caller returns). */
export async function failOrStall(
  res: ServerResponse,
  o: ResolvedOptions,
  count: { n: number; counted: boolean },
  stream: boolean,
  signal: AbortSignal,
  failure: EngineFailure,
): Promise<boolean> {
  const b = o.behaviour;
  if (count.counted && b.failAfter > 0 && count.n > b.failAfter) throw new SimHttpError(500, failure.message, failure.type);
  if (count.counted && b.stallAfter > 0 && count.n > b.stallAfter) {
    if (stream) res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).flushHeaders();
    await wait(b.stallMs > 0 ? b.stallMs : 2 ** 31 - 1, signal);
    res.destroy();
    return true;
  }
  return false;
}

/** Resolves on time, or early (returning false) when the client has gone. */
export async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}
