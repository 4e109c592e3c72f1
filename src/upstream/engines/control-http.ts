// One HTTP request to an engine's control route (POST with or without a JSON body, GET), bounded by a
// signal: status, raw text and parsed JSON (requestJson sends; no answer is a ControlUnreachableError).
import { type JsonReply, type NoAnswer, requestJson } from '../request-json.js';

export type ControlReply = JsonReply;

/** The server could not be reached (refused, reset, timed out before an answer). */
export class ControlUnreachableError extends Error {
  override readonly name = 'ControlUnreachableError';
}

function unreachable(why: NoAnswer, url: URL): ControlUnreachableError {
  if (why.kind === 'timeout') return new ControlUnreachableError(`${url.origin}${url.pathname} did not answer in time`);
  return new ControlUnreachableError(why.kind === 'connection' ? `cannot reach ${url.origin} (${why.code})` : `${url.origin} closed its answer to ${url.pathname} early`);
}

export function controlRequest(url: URL, method: 'GET' | 'POST', signal: AbortSignal, body?: unknown): Promise<ControlReply> {
  return requestJson(url, { method, signal, body, unreachable });
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
