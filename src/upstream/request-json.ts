// One JSON request to a model server over node:http(s) (fetch refuses "unsafe" ports such as 6000 or 6665),
// bounded by a signal: status, raw text and parsed JSON. The preflight probes and the engine-control routes
// both send through it; each caller turns a server that gives no answer into its own typed error.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';

export interface JsonReply {
  status: number;
  text: string;
  /** Parsed JSON, or undefined when the body is empty or not JSON. */
  json: unknown;
}

/** Why the server gave no (complete) answer. */
export type NoAnswer =
  /** The signal fired (the caller's deadline) before the answer ended. */
  | { kind: 'timeout' }
  /** The connection failed: refused, reset, unknown host (`code` is the system's, e.g. ECONNREFUSED). */
  | { kind: 'connection'; code: string }
  /** The answer began, then the connection closed. */
  | { kind: 'cut' };

export interface JsonRequestOptions {
  /** Default: POST with a body, GET without. */
  method?: 'GET' | 'POST';
  /** Sent as JSON; a POST without one sends an empty body (content-length 0). */
  body?: unknown;
  signal: AbortSignal;
  /** Default application/json. */
  accept?: string;
  headers?: Readonly<Record<string, string>>;
  /** The caller's typed error for a server that gave no answer. */
  unreachable: (why: NoAnswer, url: URL) => Error;
}

/** Sends the request; resolves with the response as soon as its head arrives. */
export function openRequest(url: URL, options: JsonRequestOptions): Promise<IncomingMessage> {
  const { signal, unreachable } = options;
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(unreachable({ kind: 'timeout' }, url));
      return;
    }
    const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
    const method = options.method ?? (payload ? 'POST' : 'GET');
    const headers: Record<string, string | number> = { ...options.headers, accept: options.accept ?? 'application/json' };
    if (payload) headers['content-type'] = 'application/json';
    if (payload || method === 'POST') headers['content-length'] = payload?.length ?? 0;
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, { method, headers, signal });
    req.on('response', resolve);
    req.on('error', (error: NodeJS.ErrnoException) => {
      reject(unreachable(signal.aborted ? { kind: 'timeout' } : { kind: 'connection', code: error.code ?? error.message }, url));
    });
    req.end(payload);
  });
}

/** The whole body as text. */
export async function readText(response: IncomingMessage, url: URL, options: Pick<JsonRequestOptions, 'signal' | 'unreachable'>): Promise<string> {
  const parts: Buffer[] = [];
  try {
    for await (const part of response) parts.push(part as Buffer);
  } catch {
    throw options.unreachable(options.signal.aborted ? { kind: 'timeout' } : { kind: 'cut' }, url);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Any HTTP status is an answer; only a server that gives none throws (the caller's `unreachable` error). */
export async function requestJson(url: URL, options: JsonRequestOptions): Promise<JsonReply> {
  const response = await openRequest(url, options);
  const text = await readText(response, url, options);
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.statusCode ?? 0, text, json };
}
