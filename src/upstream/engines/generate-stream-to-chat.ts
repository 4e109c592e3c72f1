// A streamed SGLang /generate answer as the chat.completion.chunk stream the relays read, converted as it
// arrives (sglang-stream-reader.ts). SGLang sends HTTP 200 before it has checked anything: a request it refuses
// (the prompt over the context length, a bad sampling parameter) comes as a first `data: {"error": …}` event
// (http_server.py @ 0025436e generate_request). That first event is answered as the 400 a non-streaming
// /generate gives for the same request (`_create_error_response`), so a context overflow is classified as one.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { SseDataParser } from '../sse-line-splitter.js';
import { UpstreamConnectionError, type UpstreamResponse } from '../upstream-client.js';
import { SglangStreamReader, type SglangStreamOptions } from './sglang-stream-reader.js';

/** The `error` of a payload that is an SGLang error event, else undefined. */
function errorOf(data: string | undefined): unknown {
  if (data === undefined || !data.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(data) as { error?: unknown; meta_info?: unknown };
    return parsed.meta_info === undefined ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits for the stream's first event, then hands on the converted stream (non-200 answers pass unchanged).
 * Contract: rejects with UpstreamConnectionError when the upstream fails before its first event.
 */
export async function generateStreamAsChat(response: UpstreamResponse, options: SglangStreamOptions): Promise<UpstreamResponse> {
  if (response.status !== 200) return response;
  const upstream = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const sse = new SseDataParser();
  const head: string[] = [];
  let ended = false;
  try {
    while (head.length === 0 && !ended) {
      const next = await upstream.next();
      if (next.done) {
        ended = true;
        head.push(...sse.end());
      } else {
        head.push(...sse.push(next.value));
      }
    }
  } catch (error) {
    throw new UpstreamConnectionError(`upstream closed its stream before the first event: ${(error as Error).message}`, response.timedOut() ? 'timeout' : 'unavailable', { cause: error });
  }
  const refused = errorOf(head[0]);
  if (refused !== undefined) {
    await upstream.return?.();
    return { ...response, status: 400, body: Readable.from([Buffer.from(JSON.stringify({ error: refused }))]) as unknown as IncomingMessage };
  }
  const reader = new SglangStreamReader(options);
  const convert = (events: string[]): Buffer => Buffer.from(events.map((data) => reader.read(data)).join(''));
  async function* chat(): AsyncGenerator<Buffer> {
    try {
      yield convert(head);
      while (!ended) {
        const next = await upstream.next();
        if (next.done) break;
        const out = convert(sse.push(next.value));
        if (out.length > 0) yield out;
      }
      const rest = convert(sse.end());
      if (rest.length > 0) yield rest;
    } finally {
      // The reader left early (client gone, a failed relay): the upstream request is closed with it.
      await upstream.return?.();
    }
  }
  return { ...response, body: Readable.from(chat(), { objectMode: false }) as unknown as IncomingMessage };
}
