// Streams one chat completion as the engine emits its tokens: the role chunk at once, then a chunk per
// `chunkTokens` sampled tokens as soon as they are out, the finish (or 'abort'; none for a request aborted
// before its first token, as vLLM), usage and [DONE]. vLLM's route and SGLang's share it; a ChatStreamWire
// carries what SGLang's stream says differently.
import type { ServerResponse } from 'node:http';
import type { ChatCompletionChunkWire } from '../upstream/vllm-api-types.js';
import type { ResponseIdentity } from './build-chat-completion.js';
import { ChatChunkBuilder } from './chat-chunk-builder.js';
import { emittedLogprobs } from './emitted-completion.js';
import type { GenerationHandle } from './engine/generation-types.js';
import type { SimBehaviour } from './sim-behaviour.js';
import type { SimChatRequest } from './sim-request.js';
import type { SimulatedCompletion } from './simulate-completion.js';
import { writeOrStop } from './write-response.js';

/** How a server's stream differs from vLLM's (default: vLLM's chunks as ChatChunkBuilder makes them). */
export interface ChatStreamWire {
  /** The chunk as this server writes it. */
  shape(chunk: ChatCompletionChunkWire): unknown;
  /** The chunk an aborted stream ends with, instead of the builder's finish chunk; no usage chunk follows it. */
  abortChunk(): unknown;
}

export interface ChatStream {
  sim: SimulatedCompletion;
  request: SimChatRequest;
  identity: ResponseIdentity;
  behaviour: SimBehaviour;
  chunkTokens: number;
  wire?: ChatStreamWire;
}

function event(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Writes the SSE body (headers already sent); returns early when the client leaves. */
export async function streamChatCompletion(res: ServerResponse, signal: AbortSignal, generation: GenerationHandle, stream: ChatStream): Promise<void> {
  const { sim, request, behaviour, wire } = stream;
  const write = (chunk: ChatCompletionChunkWire): Promise<boolean> => writeOrStop(res, event(wire ? wire.shape(chunk) : chunk), signal);
  const builder = new ChatChunkBuilder(sim, request, stream.identity);
  if (!(await write(builder.role()))) return;
  const step = Math.max(1, Math.floor(stream.chunkTokens));
  let ownAbort = false;
  for (;;) {
    const batch = await generation.next(step);
    if (signal.aborted) return;
    const start = batch.offset;
    const end = start + batch.tokens.length;
    const range = { ids: sim.tokenIds.slice(start, end), texts: sim.tokenTexts.slice(start, end), logprobs: emittedLogprobs(sim, batch.tokens, start, request, behaviour) };
    // A server with its own abort chunk gets the tokens that came out with the abort in an ordinary chunk first.
    ownAbort = batch.finish === 'abort' && wire !== undefined;
    // vLLM skips an output with no text, no ids and no tokens before it ("chunked prefill case"): a request
    // aborted before its first token gets no finish chunk at all, only the usage and [DONE].
    if (batch.finish === 'abort' && !ownAbort && end === 0) break;
    const finish = batch.finish === null || ownAbort ? null : batch.finish === 'abort' ? 'abort' : sim.finishReason;
    const chunk = builder.tokens(range, finish);
    if (chunk && !(await write(chunk))) return;
    if (batch.finish !== null) break;
  }
  if (ownAbort && wire) {
    if (!(await writeOrStop(res, event(wire.abortChunk()), signal))) return;
  } else {
    const usage = builder.usage();
    if (usage && !(await write(usage))) return;
  }
  if (await writeOrStop(res, 'data: [DONE]\n\n', signal)) res.end();
}
