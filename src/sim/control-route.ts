// One control route of the simulator: reads the query and the (optional) JSON body, runs the action, answers
// and appends the request to the control log (SimControl.log), whatever the answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResolvedOptions, RouteTable } from './sim-server.js';
import { sendJson } from './write-response.js';

/** What a control action answers: JSON, plain text, or an empty 200. */
export type ControlAnswer = { status: number; json: unknown } | { status: number; text: string; type?: string } | { status: number; empty: true };

export interface ControlRequest {
  query: URLSearchParams;
  /** The parsed body; undefined when empty. A body that is not JSON is a 400 before the action runs. */
  body: unknown;
  o: ResolvedOptions;
}

export type ControlAction = (request: ControlRequest) => ControlAnswer | Promise<ControlAnswer>;

/** FastAPI's answer to a route that does not exist (or is not registered without its start-up flag). */
export const NOT_FOUND: ControlAnswer = { status: 404, json: { detail: 'Not Found' } };

async function readOptionalJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; message: string }> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  const text = Buffer.concat(parts).toString('utf8');
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: `JSON decode error: ${(error as Error).message}` };
  }
}

function send(res: ServerResponse, answer: ControlAnswer): void {
  if ('json' in answer) {
    sendJson(res, answer.status, answer.json);
  } else if ('text' in answer) {
    res.writeHead(answer.status, { 'content-type': answer.type ?? 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(answer.text) });
    res.end(answer.text);
  } else {
    res.writeHead(answer.status, { 'content-length': 0 }).end();
  }
}

/** A route-table entry that logs the request and answers what `action` returns. */
export function controlRoute(method: 'GET' | 'POST' | 'GET|POST', action: ControlAction): RouteTable[string] {
  return {
    method,
    run: async (req, res, o) => {
      const url = new URL(req.url ?? '/', 'http://sim');
      const read = await readOptionalJson(req);
      const answer: ControlAnswer = read.ok
        ? await action({ query: url.searchParams, body: read.value, o })
        : { status: 400, json: { error: { message: read.message, type: 'BadRequestError', param: null, code: 400 } } };
      o.control.record({
        at: Date.now(),
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        body: read.ok ? read.value : undefined,
        status: answer.status,
      });
      send(res, answer);
    },
  };
}

/** The body as an object (an absent or non-object body reads as `{}`). */
export function bodyObject(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
