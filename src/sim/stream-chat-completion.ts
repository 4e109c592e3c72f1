// Streams one chat completion as the engine emits its tokens: the role chunk at once, then a chunk per
// `chunkTokens` sampled tokens as soon as they are out, the finish (or 'abort'), usage and [DONE].
import type { ServerResponse } from 'node:http';
import type { ResponseIdentity } from './build-chat-completion.js';
import { ChatChunkBuilder } from './chat-completion-chunks.js';
import { emittedLogprobs } from './emitted-completion.js';
import type { GenerationHandle } from './engine/generation-types.js';
import type { SimBehaviour } from './sim-behaviour.js';
import type { SimChatRequest } from './sim-request.js';
import type { SimulatedCompletion } from './simulate-completion.js';
import { writeOrStop } from './write-response.js';

export interface ChatStream {
  sim: SimulatedCompletion;
  request: SimChatRequest;
  identity: ResponseIdentity;
  behaviour: SimBehaviour;
  chunkTokens: number;
}

function event(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Writes the SSE body (headers already sent); returns early when the client leaves. */
export async function streamChatCompletion(res: ServerResponse, signal: AbortSignal, generation: GenerationHandle, stream: ChatStream): Promise<void> {
  const { sim, request, behaviour } = stream;
  const builder = new ChatChunkBuilder(sim, request, stream.identity);
  if (!(await writeOrStop(res, event(builder.role()), signal))) return;
  const step = Math.max(1, Math.floor(stream.chunkTokens));
  for (;;) {
    const batch = await generation.next(step);
    if (signal.aborted) return;
    const start = batch.offset;
    const end = start + batch.tokens.length;
    const range = { ids: sim.tokenIds.slice(start, end), texts: sim.tokenTexts.slice(start, end), logprobs: emittedLogprobs(sim, batch.tokens, start, request, behaviour) };
    const finish = batch.finish === null ? null : batch.finish === 'abort' ? 'abort' : sim.finishReason;
    const chunk = builder.tokens(range, finish);
    if (chunk && !(await writeOrStop(res, event(chunk), signal))) return;
    if (batch.finish !== null) break;
  }
  const usage = builder.usage();
  if (usage && !(await writeOrStop(res, event(usage), signal))) return;
  if (await writeOrStop(res, 'data: [DONE]\n\n', signal)) res.end();
}
