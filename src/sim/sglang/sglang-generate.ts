// SGLang's native POST /generate in the simulator (io_struct.py GenerateReqInput; http_server.py @ 0025436e):
// `input_ids` or `text`, `sampling_params` (max_new_tokens default 128), `return_logprob` (+ top_logprobs_num),
// `stream` (every chunk cumulative: text, output_ids and logprobs so far). No template: the prompt ids are
// read back into the chat request the policy answers, as for vLLM's token-in /v1/completions.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { SglangFinishReasonWire, SglangGenerateWire, SglangTokenLogprobWire } from '../../upstream/engines/sglang-api-types.js';
import { adjustLogprobs } from '../apply-sim-behaviour.js';
import { createIncrementalDecoder, decodeTokens, encodeText, QWEN_TOKEN_IDS } from '../qwen-tokenizer.js';
import { sampleFromPrompt } from '../sample-from-prompt.js';
import { badRequest } from '../sim-errors.js';
import type { SimChatRequest } from '../sim-request.js';
import { headersOf, readJson, type ResolvedOptions, type SimServerStats } from '../sim-server.js';
import { clientGone, sendJson, writeOrStop } from '../write-response.js';
import { logprobEntries } from '../simulate-completion.js';
import { alternativeLogprobs } from '../synthetic-logprobs.js';
import { checkSglangContextWindow } from './sglang-context-window.js';
import { withSglangErrors } from './sglang-errors.js';
import { countRequest, failOrStall, SGLANG_SCHEDULER_DEAD } from '../sim-faults.js';
import { submitGeneration } from '../submit-generation.js';
import type { EmittedToken, GenerationFinish } from '../engine/generation-types.js';

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

/** One planned generation: the ids, each token's text, the planned finish, and how logprobs are asked for. */
interface Generated {
  promptIds: number[];
  ids: number[];
  texts: string[];
  finish: SglangFinishReasonWire;
  /** Null when return_logprob is off. */
  logprobs: { topK: number; withText: boolean; temperature: number } | null;
}

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

/** Logprob entries of the emitted tokens at output positions offset.., each with the weight version it was sampled with. */
function emittedLogprobs(g: Generated, tokens: readonly EmittedToken[], offset: number, o: ResolvedOptions): EmittedLogprobs {
  const spec = g.logprobs as NonNullable<Generated['logprobs']>;
  const ids = tokens.map((token) => token.id);
  const versions = tokens.map((token) => token.version);
  // SGLang's default logprobs follow temperature (sampler.py); SGLANG_RETURN_ORIGINAL_LOGPROB=1 gives raw ones.
  const entries = adjustLogprobs(logprobEntries(ids, spec.topK, false, versions, offset), { messages: [], temperature: spec.temperature } as SimChatRequest, o.behaviour, offset) ?? [];
  const logprobs = entries.map((entry, i): SglangTokenLogprobWire => [entry.logprob, ids[i] as number, spec.withText ? entry.token : null]);
  // logprobEntries lists the sampled token, then alternativeLogprobs' candidates in order: their ids, aligned.
  const top =
    spec.topK > 0
      ? entries.map((entry, i) => {
          const altIds = [ids[i] as number, ...alternativeLogprobs(offset + i, ids[i] as number, spec.topK - 1, versions[i]).map((alt) => alt.id)];
          return (entry.top_logprobs ?? []).map((alt, k): SglangTokenLogprobWire => [alt.logprob, altIds[k] ?? 0, spec.withText ? alt.token : null]);
        })
      : null;
  return { logprobs, top };
}

interface EmittedLogprobs {
  logprobs: SglangTokenLogprobWire[];
  top: SglangTokenLogprobWire[][] | null;
}

/** SGLang's finish_reason of a request the engine aborted (FINISH_ABORT.to_json()). */
const ABORTED: SglangFinishReasonWire = { type: 'abort', message: 'Abort before the request finished (pause_generation or abort_request).' };

/**
 * The answer after `tokens` came out (cumulative, as SGLang streams /generate); `finish` set once the request
 * ended. meta_info.weight_version is the server's label when the answer is written, as SGLang's
 * TokenizerManager fills it (server_args.weight_version at output time), not per token.
 */
function answerAt(g: Generated, n: number, lp: EmittedLogprobs | null, finish: GenerationFinish | null, id: string, started: number, o: ResolvedOptions): SglangGenerateWire {
  return {
    text: g.texts.slice(0, n).join(''),
    output_ids: g.ids.slice(0, n),
    meta_info: {
      id,
      finish_reason: finish === null ? null : finish === 'abort' ? ABORTED : g.finish,
      prompt_tokens: g.promptIds.length,
      completion_tokens: n,
      cached_tokens: 0,
      weight_version: o.control.weightLabel,
      ...(lp ? { output_token_logprobs: lp.logprobs } : {}),
      ...(lp?.top ? { output_top_logprobs: lp.top } : {}),
      ...(finish !== null ? { e2e_latency: (performance.now() - started) / 1000 } : {}),
    },
  };
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
      const g = await generate(parsed.data, headersOf(req), o);
      const id = randomUUID().replace(/-/g, '');
      const generation = submitGeneration(o.generation, { promptTokenIds: g.promptIds, outputTokenIds: g.ids, finishReason: g.finish.type === 'length' ? 'length' : 'stop' }, signal);
      if (parsed.data.stream !== true) {
        const { tokens, finish } = await generation.next(Number.POSITIVE_INFINITY);
        if (signal.aborted) return;
        sendJson(res, 200, answerAt(g, tokens.length, g.logprobs ? emittedLogprobs(g, tokens, 0, o) : null, finish ?? 'abort', id, started, o));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      const step = Math.max(1, o.chunkTokens);
      let sent = 0;
      const soFar: EmittedLogprobs | null = g.logprobs ? { logprobs: [], top: g.logprobs.topK > 0 ? [] : null } : null;
      for (;;) {
        const batch = await generation.next(step);
        if (signal.aborted) return;
        if (soFar !== null) {
          const more = emittedLogprobs(g, batch.tokens, batch.offset, o);
          soFar.logprobs.push(...more.logprobs);
          if (more.top) soFar.top?.push(...more.top);
        }
        sent = batch.offset + batch.tokens.length;
        if (batch.tokens.length > 0 || batch.finish !== null) {
          if (!(await writeOrStop(res, `data: ${JSON.stringify(answerAt(g, sent, soFar, batch.finish, id, started, o))}\n\n`, signal))) return;
        }
        if (batch.finish !== null) break;
      }
      if (await writeOrStop(res, 'data: [DONE]\n\n', signal)) res.end();
    } finally {
      stats.inFlight--;
      if (signal.aborted) stats.disconnects++;
    }
  });
}
