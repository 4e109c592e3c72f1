// The simulator's streamed /generate, driven by its generation engine: one output per `chunkTokens` emitted
// tokens (SGLang's --stream-interval), written as SGLang writes it (http_server.py @ 0025436e generate_request:
// `data: <json>` per output, `data: [DONE]` last) in one of its releases' shapes (SglangStreamOutput), each
// output's meta_info.weight_version the label in force when the output came out. The flaws on request: outputs
// that queue up while the writer lags (coalesced, or all but the newest dropped from output_ids in the legacy
// shape; a queued output waits for the next one at most WRITER_LAG_MS, never across a pause), the
// scheduler's weight_versions spans on the finished chunk, and a connection cut without [DONE].
import type { ServerResponse } from 'node:http';
import type { SglangGenerateWire, SglangTokenLogprobWire } from '../../upstream/engines/sglang-api-types.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EmittedToken, GenerationFinish, GenerationHandle, TokenBatch } from '../engine/generation-types.js';
import type { ResolvedOptions } from '../sim-server.js';
import { writeOrStop } from '../write-response.js';
import { type EmittedLogprobs, emittedLogprobs, type Generated, metaInfo, weightVersionSpans } from './sglang-generate-answer.js';

/** How long a queued output waits for the next one before the lagging writer catches up (stream-backlog). */
const WRITER_LAG_MS = 25;

/** One output of the scheduler: tokens [start, end), its finish, the label when it came out. */
interface Output {
  start: number;
  end: number;
  finish: GenerationFinish | null;
  label: string;
}

export interface GenerateStream {
  g: Generated;
  generation: GenerationHandle;
  id: string;
  started: number;
}

export async function streamSglangGenerate(res: ServerResponse, signal: AbortSignal, o: ResolvedOptions, stream: GenerateStream): Promise<void> {
  const { g, generation } = stream;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  const shape = o.sglang.streamOutput;
  const tokens: EmittedToken[] = [];
  const logprobs: SglangTokenLogprobWire[] = [];
  const top: SglangTokenLogprobWire[][] = [];
  let queued: Output[] = [];
  let outputs = 0;
  let written = 0;
  const write = async (): Promise<boolean> => {
    const chunk = chunkOf(g, queued, written, shape, tokens, { logprobs, top }, stream, o);
    queued = [];
    written = tokens.length;
    return writeOrStop(res, `data: ${JSON.stringify(chunk)}\n\n`, signal);
  };
  let next: Promise<TokenBatch> | null = null;
  for (;;) {
    next ??= generation.next(Math.max(1, o.chunkTokens));
    // A queued output goes out with the next one, or once the writer has caught up (never held across a pause).
    const batch = queued.length === 0 ? await next : await Promise.race([next, sleep(WRITER_LAG_MS).then(() => null)]);
    if (signal.aborted) return;
    if (batch === null) {
      if (!(await write())) return;
      continue;
    }
    next = null;
    if (batch.tokens.length === 0 && batch.finish === null) continue;
    tokens.push(...batch.tokens);
    if (g.logprobs) {
      const more = emittedLogprobs(g, batch.tokens, batch.offset, o);
      logprobs.push(...more.logprobs);
      if (more.top) top.push(...more.top);
    }
    outputs += 1;
    queued.push({ start: batch.offset, end: tokens.length, finish: batch.finish, label: o.control.weightLabel });
    const cut = o.sglang.dropStreamAfter > 0 && tokens.length >= o.sglang.dropStreamAfter && batch.finish === null;
    // The writer lags: this output waits in the tokenizer manager (for the next one, at most WRITER_LAG_MS).
    if (!cut && batch.finish === null && o.sglang.streamBacklog > 0 && outputs % o.sglang.streamBacklog === 0) continue;
    if (!(await write())) return;
    if (cut) {
      // SGLang's scheduler aborted the request with a 503 (an HTTPException inside the stream): the connection
      // closes after what was written, without the chunked answer's end.
      generation.cancel();
      await new Promise((resolve) => setImmediate(resolve));
      res.socket?.end();
      return;
    }
    if (batch.finish !== null) break;
  }
  if (await writeOrStop(res, 'data: [DONE]\n\n', signal)) res.end();
}

/** The chunk written for the queued outputs (the newest one's meta_info, as SGLang takes the last). */
function chunkOf(g: Generated, queued: readonly Output[], written: number, shape: ResolvedOptions['sglang']['streamOutput'], tokens: readonly EmittedToken[], lp: EmittedLogprobs, stream: GenerateStream, o: ResolvedOptions): SglangGenerateWire {
  const last = queued.at(-1) as Output;
  const end = last.end;
  // incremental: everything new, coalesced; legacy: the newest output's own ids only; cumulative: all of it.
  const textFrom = shape === 'incremental' ? written : 0;
  const idsFrom = shape === 'cumulative' ? 0 : shape === 'legacy' ? last.start : written;
  const logprobsFrom = shape === 'incremental' ? written : 0;
  const finished = last.finish !== null;
  return {
    text: g.texts.slice(textFrom, end).join(''),
    output_ids: g.ids.slice(idsFrom, end),
    meta_info: {
      ...metaInfo(g, end, last.finish, stream.id, last.label, stream.started),
      ...(finished && o.sglang.weightVersionSpans ? { weight_versions: weightVersionSpans(tokens, o) } : {}),
      ...(g.logprobs ? { output_token_logprobs: lp.logprobs.slice(logprobsFrom, end) } : {}),
      ...(g.logprobs && g.logprobs.topK > 0 ? { output_top_logprobs: lp.top?.slice(logprobsFrom, end) } : {}),
    },
  };
}
