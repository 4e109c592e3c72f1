// vLLM's /v1/completions with a token-id prompt (token-in): no template, no parsers; ids, legacy logprobs, streaming.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { ToolFormat } from '../model-format/format-types.js';
import type { Policy, PolicyContext } from './policy.js';
import { createIncrementalDecoder, decodeTokens, QWEN_TOKEN_IDS, encodeText } from './qwen-tokenizer.js';
import { sampleFromPrompt } from './sample-from-prompt.js';
import type { DriftKnobs } from './sim-drift.js';
import { badRequest } from './sim-errors.js';
import { checkContextWindow, checkModel, logprobEntries, type ContextErrorStyle } from './simulate-completion.js';
import type { GenerationService } from './engine/engine-driver.js';
import type { EmittedToken, GenerationFinish } from './engine/generation-types.js';
import { submitGeneration } from './submit-generation.js';
import { clientGone, writeOrStop } from './write-response.js';

const completionSchema = z.object({
  model: z.string().nullish(),
  prompt: z.union([z.array(z.number().int().min(0)).min(1), z.string()]),
  max_tokens: z.number().int().min(1).nullish(),
  logprobs: z.number().int().min(0).max(20).nullish(),
  return_token_ids: z.boolean().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
  echo: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
});

export interface CompletionsOptions {
  policy: Policy;
  modelName: string;
  maxModelLen: number;
  contextErrorStyle: ContextErrorStyle;
  toolFormat: ToolFormat;
  drift: DriftKnobs | undefined;
  generation: GenerationService;
}

/** Legacy completions logprobs for a span of emitted tokens (output position `position`, text offset `offset`). */
function legacyLogprobs(tokens: readonly EmittedToken[], texts: readonly string[], position: number, offset: number, top: number) {
  const entries = logprobEntries(tokens.map((t) => t.id), top, false, tokens.map((t) => t.version), position);
  let at = offset;
  return {
    tokens: entries.map((entry) => entry.token),
    token_logprobs: entries.map((entry) => entry.logprob),
    top_logprobs: entries.map((entry) => (top > 0 ? Object.fromEntries((entry.top_logprobs ?? []).map((alt) => [alt.token, alt.logprob])) : null)),
    text_offset: texts.map((text) => {
      const start = at;
      at += text.length;
      return start;
    }),
  };
}

/** Answers one /v1/completions request (JSON or SSE). */
export async function handleCompletions(body: unknown, headers: PolicyContext['headers'], res: ServerResponse, o: CompletionsOptions): Promise<void> {
  const parsed = completionSchema.safeParse(body);
  if (!parsed.success) throw badRequest(`1 validation error for CompletionRequest\n${parsed.error.issues[0]?.path.join('.') ?? 'body'}\n  ${parsed.error.issues[0]?.message ?? ''}`);
  const request = parsed.data;
  checkModel(request.model, o.modelName);
  const promptIds = typeof request.prompt === 'string' ? encodeText(request.prompt) : request.prompt;
  let promptText: string;
  try {
    promptText = decodeTokens(promptIds);
  } catch (error) {
    throw badRequest(error instanceof Error ? error.message : String(error), 'prompt');
  }
  checkContextWindow(promptIds.length, request.max_tokens, o.maxModelLen, o.contextErrorStyle);
  const sampled = await sampleFromPrompt(promptText, headers, o);
  const budget = Math.min(request.max_tokens ?? Number.POSITIVE_INFINITY, o.maxModelLen - promptIds.length);
  const truncated = sampled.tokenIds.length > budget;
  const ids = truncated ? sampled.tokenIds.slice(0, budget) : sampled.tokenIds;
  const finish = truncated ? 'length' : sampled.finish;
  const decoder = createIncrementalDecoder();
  const skipSpecial = request.skip_special_tokens ?? true;
  const texts = ids.map((id, i) => {
    const text = decoder.push(id);
    return skipSpecial && finish === 'stop' && i === ids.length - 1 && id === QWEN_TOKEN_IDS.imEnd ? '' : text;
  });
  const top = request.logprobs ?? null;
  const wantIds = request.return_token_ids === true;
  const base = { id: `cmpl-${randomUUID().replace(/-/g, '')}`, object: 'text_completion' as const, created: Math.floor(Date.now() / 1000), model: o.modelName };
  const usage = (completion: number) => ({ prompt_tokens: promptIds.length, total_tokens: promptIds.length + completion, completion_tokens: completion });
  const finishOf = (end: GenerationFinish): string => (end === 'abort' ? 'abort' : finish);
  const signal = clientGone(res);
  const generation = submitGeneration(o.generation, { promptTokenIds: promptIds, outputTokenIds: ids, finishReason: finish }, signal);
  if (!request.stream) {
    const { tokens, finish: end } = await generation.next(Number.POSITIVE_INFINITY);
    if (signal.aborted) return;
    const out = texts.slice(0, tokens.length);
    const json = JSON.stringify({
      ...base,
      choices: [
        {
          index: 0,
          text: out.join(''),
          logprobs: top === null ? null : legacyLogprobs(tokens, out, 0, 0, top),
          finish_reason: finishOf(end ?? 'abort'),
          stop_reason: null,
          token_ids: wantIds ? tokens.map((t) => t.id) : null,
          prompt_token_ids: wantIds ? promptIds : null,
          prompt_logprobs: null,
        },
      ],
      usage: usage(tokens.length),
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
    res.end(json);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
  let offset = 0;
  let sent = 0;
  for (;;) {
    // One chunk per sampled token, written as the engine emits it.
    const { tokens, offset: position, finish: end } = await generation.next(1);
    if (signal.aborted) return;
    // vLLM skips an output with no text, no ids and no tokens before it: a request aborted before its first
    // token streams no chunk at all (not even its prompt ids), only the usage and [DONE].
    if (end === 'abort' && sent === 0 && tokens.length === 0) break;
    const text = texts.slice(position, position + tokens.length);
    const choice = {
      index: 0,
      text: text.join(''),
      logprobs: top === null ? null : legacyLogprobs(tokens, text, position, offset, top),
      finish_reason: end === null ? null : finishOf(end),
      stop_reason: null,
      ...(wantIds ? { token_ids: tokens.map((t) => t.id) } : {}),
      ...(wantIds && position === 0 ? { prompt_token_ids: promptIds } : {}),
    };
    offset += choice.text.length;
    sent += tokens.length;
    if (!(await writeOrStop(res, `data: ${JSON.stringify({ ...base, choices: [choice] })}\n\n`, signal))) return;
    if (end !== null) break;
  }
  if (request.stream_options?.include_usage && !(await writeOrStop(res, `data: ${JSON.stringify({ ...base, choices: [], usage: usage(sent) })}\n\n`, signal))) return;
  if (await writeOrStop(res, 'data: [DONE]\n\n', signal)) res.end();
}

