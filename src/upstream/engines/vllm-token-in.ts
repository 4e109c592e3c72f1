// vLLM's token-in transport: the token-id prompt goes to /v1/completions with return_token_ids; the answer
// (JSON or SSE) is rewritten into the chat shape the relays read.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { ParseOptions } from '../../model-format/format-types.js';
import { readBody, type UpstreamResponse } from '../upstream-client.js';
import type { ChatCompletionRequestWire } from '../vllm-api-types.js';
import { completionToChat, CompletionStreamToChat, type CompletionWire } from './completion-to-chat.js';

/**
 * The /v1/completions body: the chat body's sampling, the token-id prompt. Without max_tokens it asks for
 * the rest of the context, as the chat endpoint does (completions would stop after 16 tokens).
 */
export function completionsBody(body: ChatCompletionRequestWire, promptIds: number[], maxModelLen: number | null | undefined): Record<string, unknown> {
  const maxTokens = body.max_tokens ?? (maxModelLen ? maxModelLen - promptIds.length : undefined);
  const { model, temperature, top_p, top_k, min_p, seed, stop, presence_penalty, frequency_penalty, stream, stream_options, skip_special_tokens } = body;
  return {
    model,
    prompt: promptIds,
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...{ temperature, top_p, top_k, min_p, seed, stop, presence_penalty, frequency_penalty, stream, stream_options, skip_special_tokens },
    logprobs: body.top_logprobs ?? 0,
    return_token_ids: true,
  };
}

/** The answer of /v1/completions, in the chat shape the relays read (non-200 answers pass unchanged). */
export async function completionAsChat(response: UpstreamResponse, stream: boolean, options: ParseOptions): Promise<UpstreamResponse> {
  if (response.status !== 200) return response;
  if (stream) {
    const converted = new CompletionStreamToChat(options);
    response.body.on('error', (error) => converted.destroy(error));
    converted.on('close', () => {
      if (!response.body.readableEnded) response.body.destroy();
    });
    response.body.pipe(converted);
    return { ...response, body: converted as unknown as IncomingMessage };
  }
  const raw = await readBody(response.body);
  let text: string;
  try {
    text = JSON.stringify(completionToChat(JSON.parse(raw.toString('utf8')) as CompletionWire, options));
  } catch {
    text = raw.toString('utf8'); // the relay reports it as not a chat.completion
  }
  return { ...response, body: Readable.from([Buffer.from(text)]) as unknown as IncomingMessage };
}
