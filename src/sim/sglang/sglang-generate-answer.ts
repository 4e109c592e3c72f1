// What the simulator's /generate answers are made of: the planned generation, the logprob entries of the
// tokens the engine emitted (each with the weight version it was sampled with), meta_info as SGLang's
// TokenizerManager fills it (tokenizer_manager.py @ 0025436e _handle_batch_output), and the finished answer's
// weight_versions spans of newer releases (utils/weight_versions.py @ 460534be).
import type { SglangFinishReasonWire, SglangGenerateWire, SglangTokenLogprobWire, SglangWeightVersionSpanWire } from '../../upstream/engines/sglang-api-types.js';
import { adjustLogprobs, LOGPROB_CLAMP } from '../apply-sim-behaviour.js';
import type { EmittedToken, GenerationFinish } from '../engine/generation-types.js';
import type { ResolvedOptions } from '../sim-server.js';
import type { SimChatRequest } from '../sim-request.js';
import { logprobEntries } from '../simulate-completion.js';
import { alternativeLogprobs } from '../synthetic-logprobs.js';

/** One planned generation: the ids, each token's text, the planned finish, and how logprobs are asked for. */
export interface Generated {
  promptIds: number[];
  ids: number[];
  texts: string[];
  finish: SglangFinishReasonWire;
  /** Null when return_logprob is off. */
  logprobs: { topK: number; withText: boolean; temperature: number } | null;
}

export interface EmittedLogprobs {
  logprobs: SglangTokenLogprobWire[];
  top: SglangTokenLogprobWire[][] | null;
}

/**
 * Logprob entries of the emitted tokens at output positions offset.., each with the weight version it was
 * sampled with. A clamped one (clamp-logprobs) is a -inf, which SGLang's orjson writes as null.
 */
export function emittedLogprobs(g: Generated, tokens: readonly EmittedToken[], offset: number, o: ResolvedOptions): EmittedLogprobs {
  const spec = g.logprobs as NonNullable<Generated['logprobs']>;
  const ids = tokens.map((token) => token.id);
  const versions = tokens.map((token) => token.version);
  // SGLang's default logprobs follow temperature (sampler.py); SGLANG_RETURN_ORIGINAL_LOGPROB=1 gives raw ones.
  const entries = adjustLogprobs(logprobEntries(ids, spec.topK, false, versions, offset), { messages: [], temperature: spec.temperature } as SimChatRequest, o.behaviour, offset) ?? [];
  const logprobs = entries.map((entry, i): SglangTokenLogprobWire => [entry.logprob <= LOGPROB_CLAMP ? null : entry.logprob, ids[i] as number, spec.withText ? entry.token : null]);
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

/** SGLang's finish_reason of a request the engine aborted (FINISH_ABORT.to_json()). */
const ABORTED: SglangFinishReasonWire = { type: 'abort', message: 'Abort before the request finished (pause_generation or abort_request).' };

/** The weight_versions spans of the emitted tokens: runs of the label each token's weights carried. */
export function weightVersionSpans(tokens: readonly EmittedToken[], o: ResolvedOptions): SglangWeightVersionSpanWire[] {
  const spans: SglangWeightVersionSpanWire[] = [];
  tokens.forEach((token, i) => {
    const label = o.control.labelOf(token.version);
    const last = spans.at(-1);
    if (last?.version === label) last.end = i + 1;
    else spans.push({ version: label, start: i, end: i + 1 });
  });
  return spans.length > 0 ? spans : [{ version: o.control.weightLabel, start: 0, end: 0 }];
}

/** meta_info of an answer after `n` tokens; the label is the server's when the output was written, not per token. */
export function metaInfo(g: Generated, n: number, finish: GenerationFinish | null, id: string, label: string, started: number): SglangGenerateWire['meta_info'] {
  return {
    id,
    finish_reason: finish === null ? null : finish === 'abort' ? ABORTED : g.finish,
    prompt_tokens: g.promptIds.length,
    completion_tokens: n,
    cached_tokens: 0,
    weight_version: label,
    ...(finish !== null ? { e2e_latency: (performance.now() - started) / 1000 } : {}),
  };
}

/** The non-streaming answer: everything emitted, with the spans when the simulated release reports them. */
export function wholeAnswer(g: Generated, tokens: readonly EmittedToken[], finish: GenerationFinish, id: string, started: number, o: ResolvedOptions): SglangGenerateWire {
  const lp = g.logprobs ? emittedLogprobs(g, tokens, 0, o) : null;
  return {
    text: g.texts.slice(0, tokens.length).join(''),
    output_ids: g.ids.slice(0, tokens.length),
    meta_info: {
      ...metaInfo(g, tokens.length, finish, id, o.control.weightLabel, started),
      ...(o.sglang.weightVersionSpans ? { weight_versions: weightVersionSpans(tokens, o) } : {}),
      ...(lp ? { output_token_logprobs: lp.logprobs } : {}),
      ...(lp?.top ? { output_top_logprobs: lp.top } : {}),
    },
  };
}
