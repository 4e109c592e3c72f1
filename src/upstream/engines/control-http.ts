// One HTTP request to an engine's control route (POST with or without a JSON body, GET), bounded by a
// signal: status, raw text and parsed JSON. node:http(s), as the probes (fetch refuses "unsafe" ports).
import http from 'node:http';
import https from 'node:https';

export interface ControlReply {
  status: number;
  text: string;
  /** Parsed JSON, or undefined when the body is not JSON. */
  json: unknown;
}

/** The server could not be reached (refused, reset, timed out before an answer). */
export class ControlUnreachableError extends Error {
  override readonly name = 'ControlUnreachableError';
}

export function controlRequest(url: URL, method: 'GET' | 'POST', signal: AbortSignal, body?: unknown): Promise<ControlReply> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new ControlUnreachableError(`${url.origin}${url.pathname} did not answer in time`));
      return;
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers: Record<string, string | number> = { accept: 'application/json', 'content-length': payload?.length ?? 0 };
    if (payload) headers['content-type'] = 'application/json';
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, { method, headers, signal });
    req.on('response', (response) => {
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('error', () => reject(new ControlUnreachableError(`${url.origin} closed its answer to ${url.pathname} early`)));
      response.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, text, json });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      reject(new ControlUnreachableError(signal.aborted ? `${url.origin}${url.pathname} did not answer in time` : `cannot reach ${url.origin} (${error.code ?? error.message})`));
    });
    req.end(payload);
  });
}

/** The message of an error answer in any of the engines' shapes, else its text's first line. */
export function replyMessage(reply: ControlReply): string {
  const json = reply.json as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown; error_message?: unknown } | undefined;
  const candidates = [typeof json?.error === 'object' ? json.error?.message : json?.error, json?.error_message, json?.message, json?.detail];
  const found = candidates.find((value) => typeof value === 'string' && value !== '');
  return ((found as string | undefined) ?? reply.text).split('\n')[0]?.slice(0, 300) || `HTTP ${reply.status}`;
}

/** True when the server answers HTTP at all (any status) at `path`. */
export async function answers(root: URL, path: string, signal: AbortSignal): Promise<boolean> {
  try {
    await controlRequest(new URL(path, root), 'GET', signal);
    return true;
  } catch {
    return false;
  }
}
