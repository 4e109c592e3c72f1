// SGLang's native POST /generate in the simulator (io_struct.py GenerateReqInput; http_server.py @ 0025436e):
// `input_ids` or `text`, `sampling_params` (max_new_tokens default 128), `return_logprob` (+ top_logprobs_num),
// `stream` (sglang-generate-stream.ts: the chunks in the shape of the simulated release). No template: the
// prompt ids are read back into the chat request the policy answers, as for vLLM's token-in /v1/completions.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { SglangFinishReasonWire } from '../../upstream/engines/sglang-api-types.js';
import { createIncrementalDecoder, decodeTokens, encodeText, QWEN_TOKEN_IDS } from '../qwen-tokenizer.js';
import { sampleFromPrompt } from '../sample-from-prompt.js';
import { badRequest, SimHttpError } from '../sim-errors.js';
import { headersOf, readJson, type ResolvedOptions, type SimServerStats } from '../sim-server.js';
import { clientGone, sendJson } from '../write-response.js';
import { checkSglangContextWindow } from './sglang-context-window.js';
import { withSglangErrors } from './sglang-errors.js';
import { type Generated, wholeAnswer } from './sglang-generate-answer.js';
import { streamSglangGenerate } from './sglang-generate-stream.js';
import { countRequest, failOrStall, SGLANG_SCHEDULER_DEAD } from '../sim-faults.js';
import { submitGeneration } from '../submit-generation.js';

const generateSchema = z.object({
  text: z.string().nullish(),
  input_ids: z.array(z.number().int().min(0)).min(1).nullish(),
  sampling_params: z
    .object({
      max_new_tokens: z.number().int().min(0).nullish(),
      temperature: z.number().nullish(),
      skip_special_tokens: z.boolean().nullish(),
    })
    .passthrough()
    .nullish(),
  return_logprob: z.boolean().nullish(),
  top_logprobs_num: z.number().int().min(0).nullish(),
  logprob_start_len: z.number().int().nullish(),
  return_text_in_logprobs: z.boolean().nullish(),
  stream: z.boolean().nullish(),
});

async function generate(body: z.infer<typeof generateSchema>, headers: Record<string, string | undefined>, o: ResolvedOptions): Promise<Generated> {
  const promptIds = body.input_ids ?? (typeof body.text === 'string' ? encodeText(body.text) : undefined);
  if (promptIds === undefined) throw badRequest('Either text, input_ids or input_embeds should be provided.');
  const params = body.sampling_params ?? {};
  const maxNew = params.max_new_tokens ?? 128;
  checkSglangContextWindow(promptIds.length, maxNew, o.maxModelLen);
  let promptText: string;
  try {
    promptText = decodeTokens(promptIds);
  } catch (error) {
    throw badRequest(error instanceof Error ? error.message : String(error));
  }
  const sampled = await sampleFromPrompt(promptText, headers, o);
  const truncated = sampled.tokenIds.length > maxNew;
  const ids = truncated ? sampled.tokenIds.slice(0, maxNew) : sampled.tokenIds;
  const stopped = !truncated && sampled.finish === 'stop';
  const decoder = createIncrementalDecoder();
  const skipSpecial = params.skip_special_tokens ?? true;
  const texts = ids.map((id, i) => {
    const text = decoder.push(id);
    return skipSpecial && stopped && i === ids.length - 1 && id === QWEN_TOKEN_IDS.imEnd ? '' : text;
  });
  const finish: SglangFinishReasonWire = stopped ? { type: 'stop', matched: ids.at(-1) ?? null } : { type: 'length', length: ids.length };
  const logprobs = body.return_logprob === true ? { topK: body.top_logprobs_num ?? 0, withText: body.return_text_in_logprobs === true, temperature: params.temperature ?? 1 } : null;
  return { promptIds, ids, texts, finish, logprobs };
}

export function handleSglangGenerate(req: IncomingMessage, res: ServerResponse, o: ResolvedOptions, stats: SimServerStats): Promise<void> {
  return withSglangErrors(res, async () => {
    const started = performance.now();
    const count = countRequest(req, o, stats);
    if (count.restarted) return;
    const parsed = generateSchema.safeParse(await readJson(req));
    if (!parsed.success) throw badRequest(`1 validation error for GenerateReqInput\n${parsed.error.issues[0]?.path.join('.') ?? 'body'}\n  ${parsed.error.issues[0]?.message ?? ''}`);
    const signal = clientGone(res);
    if (await failOrStall(res, o, count, parsed.data.stream === true, signal, SGLANG_SCHEDULER_DEAD)) return;
    stats.inFlight++;
    try {
      let g: Generated;
      try {
        g = await generate(parsed.data, headersOf(req), o);
      } catch (error) {
        // A streamed request is refused after HTTP 200: SGLang writes the ValueError as the stream's only event.
        if (parsed.data.stream !== true || !(error instanceof SimHttpError)) throw error;
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        res.end(`data: ${JSON.stringify({ error: { message: error.message } })}\n\ndata: [DONE]\n\n`);
        return;
      }
      const id = randomUUID().replace(/-/g, '');
      const generation = submitGeneration(o.generation, { promptTokenIds: g.promptIds, outputTokenIds: g.ids, finishReason: g.finish.type === 'length' ? 'length' : 'stop' }, signal);
      if (parsed.data.stream !== true) {
        const { tokens, finish } = await generation.next(Number.POSITIVE_INFINITY);
        if (signal.aborted) return;
        sendJson(res, 200, wholeAnswer(g, tokens, finish ?? 'abort', id, started, o));
        return;
      }
      await streamSglangGenerate(res, signal, o, { g, generation, id, started });
    } finally {
      stats.inFlight--;
      if (signal.aborted) stats.disconnects++;
    }
  });
}
