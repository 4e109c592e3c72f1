// Small HTTP helpers for the simulator tests: JSON posts and SSE collection over a real socket.
import type { ChatCompletionChunkWire } from '../../src/upstream/vllm-api-types.js';
import { readResponse } from '../helpers/read-response.js';

export async function postJson(url: string, body: unknown): Promise<{ status: number; json: unknown; text: string }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return readResponse(response);
}

/** Posts a streaming request and returns every `data:` payload (parsed) and whether `[DONE]` came last. */
export async function postStream(url: string, body: unknown): Promise<{ status: number; contentType: string | null; chunks: ChatCompletionChunkWire[]; done: boolean }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  const events = text.split('\n\n').filter((e) => e !== '');
  const payloads = events.map((e) => {
    if (!e.startsWith('data: ')) throw new Error(`Not an SSE data event: ${e}`);
    return e.slice('data: '.length);
  });
  const done = payloads.at(-1) === '[DONE]';
  const chunks = payloads.filter((p) => p !== '[DONE]').map((p) => JSON.parse(p) as ChatCompletionChunkWire);
  return { status: response.status, contentType: response.headers.get('content-type'), chunks, done };
}
