// The preflight probes' HTTP: JSON GET/POST and a streamed chat read, each bounded by a signal (requestJson
// sends; a server that gives no answer is a ProbeUnreachableError).
import type { ChatCompletionChunkWire } from '../vllm-api-types.js';
import { type JsonReply, type NoAnswer, openRequest, readText, requestJson } from '../request-json.js';
import { SseDataParser } from '../sse-line-splitter.js';

/** Marks preflight requests (polar's simulator does not count them towards its injected failures). */
export const PROBE_HEADERS: Readonly<Record<string, string>> = { 'x-polar-preflight': '1' };

/** The server could not be reached at all (refused, DNS, timeout before any answer). */
export class ProbeUnreachableError extends Error {
  override readonly name = 'ProbeUnreachableError';
}

export type ProbeAnswer = JsonReply;

function unreachable(why: NoAnswer, url: URL): ProbeUnreachableError {
  if (why.kind === 'timeout') return new ProbeUnreachableError(`${url.origin} did not answer in time`);
  return new ProbeUnreachableError(why.kind === 'connection' ? `cannot reach ${url.origin} (${why.code})` : `${url.origin} closed the answer early`);
}

export function probeJson(url: URL, signal: AbortSignal, body?: unknown): Promise<ProbeAnswer> {
  return requestJson(url, { signal, body, headers: PROBE_HEADERS, unreachable });
}

export interface StreamAnswer<T = ChatCompletionChunkWire> {
  status: number;
  /** The error body when status is not 200. */
  text: string;
  chunks: T[];
  /** The stream ended with `data: [DONE]`. */
  done?: boolean;
}

/** POSTs a streaming request (chat, or SGLang's /generate with T its chunk) and collects every chunk. */
export async function probeStream<T = ChatCompletionChunkWire>(url: URL, signal: AbortSignal, body: unknown): Promise<StreamAnswer<T>> {
  const request = { signal, body, accept: 'text/event-stream', headers: PROBE_HEADERS, unreachable };
  const response = await openRequest(url, request);
  if (response.statusCode !== 200) {
    return { status: response.statusCode ?? 0, text: await readText(response, url, request), chunks: [] };
  }
  const parser = new SseDataParser();
  const chunks: T[] = [];
  let done = false;
  const take = (data: string): void => {
    if (data === '[DONE]') {
      done = true;
      return;
    }
    try {
      chunks.push(JSON.parse(data) as T);
    } catch {
      // A malformed chunk counts as missing.
    }
  };
  try {
    for await (const part of response) for (const data of parser.push(part as Buffer)) take(data);
  } catch {
    throw new ProbeUnreachableError(signal.aborted ? `${url.origin} did not answer in time` : `${url.origin} closed the stream early`);
  }
  for (const data of parser.end()) take(data);
  return { status: 200, text: '', chunks, done };
}

/** `message` of an OpenAI-style error body, or the text's first line. */
export function errorMessageOf(answer: { json?: unknown; text: string }): string {
  const json = answer.json ?? safeParse(answer.text);
  const error = (json as { error?: { message?: unknown }; message?: unknown } | undefined) ?? {};
  const message = typeof error.error?.message === 'string' ? error.error.message : typeof error.message === 'string' ? error.message : answer.text;
  return message.split('\n')[0]?.slice(0, 300) ?? '';
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
