// One streamed SGLang /generate answer, chunk by chunk, into the chat.completion.chunks the relays read: the
// new sampled ids with their logprobs, the text parsed by model-format/ into reasoning, content and tool calls,
// and the weight_version label each token came out under. Read from sgl-project/sglang:
// - http_server.py @ 0025436e generate_request: `data: <orjson>` per output, a ValueError as
//   `data: {"error": {"message"}}`, always `data: [DONE]` last (after HTTP 200 was sent).
// - tokenizer_manager.py @ 0025436e _handle_batch_output: meta_info {id, finish_reason, prompt_tokens,
//   weight_version (server_args.weight_version when the output is written), completion_tokens (running total),
//   cached_tokens}; `text` and `output_token_logprobs` cumulative, streamed `output_ids` incremental; and
//   _wait_one_response keeps only the newest queued output (`out = state.out_list[-1]`), so the ids of
//   outputs that queued up while the HTTP writer lagged are lost. The logprob entries [logprob, id, text]
//   still hold every id: they are what this reader trusts.
// - tokenizer_manager.py @ 001067ff / output_processor.py @ 7a464c40: text, output_ids and logprobs all
//   cumulative by default, all incremental with --incremental-streaming-output (queued deltas coalesced,
//   _coalesce_streaming_chunks).
// - utils/weight_versions.py @ 460534be: the finished answer's meta_info.weight_versions spans, recorded by the
//   scheduler at each weight version change (exact per token).
// Which way each list comes is read from the chunks themselves against completion_tokens; orjson writes a
// -inf logprob as null (kept at vLLM's clamp, -9999). Nothing is re-tokenized.
import type { ParseOptions } from '../../model-format/format-types.js';
import { ModelStreamParser } from '../../model-format/model-stream-parser.js';
import type { ChatCompletionChunkWire, EngineVersionsWire } from '../vllm-api-types.js';
import { chatFinish } from './completion-to-chat.js';
import { sglangLogprobEntry } from './generate-to-chat.js';
import { policyVersionOfSglang } from './sglang-control.js';
import type { SglangGenerateWire, SglangTokenLogprobWire, SglangWeightVersionSpanWire } from './sglang-api-types.js';

type Mode = 'unknown' | 'cumulative' | 'incremental';

/** The new part of a per-chunk list, given the items before it and the running total; undefined when neither reading fits. */
function newPart<T>(list: readonly T[], have: number, total: number, mode: Mode): { items: readonly T[]; mode: Mode } | undefined {
  if (mode !== 'incremental' && have > 0 && list.length === total) return { items: list.slice(have), mode: 'cumulative' };
  if (mode !== 'cumulative' && have + list.length === total) return { items: list, mode: have > 0 ? 'incremental' : mode };
  return undefined;
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

export interface SglangStreamOptions {
  /** The input_ids sent: /generate does not echo them, meta_info.prompt_tokens counts them. */
  promptIds: number[];
  model: string;
  parse: ParseOptions;
}

/** What one upstream chunk became: SSE text for the relay (possibly empty). */
export class SglangStreamReader {
  private readonly parser: ModelStreamParser;
  private readonly created = Math.floor(Date.now() / 1000);
  private first = true;
  private done = false;
  /** Sampled ids passed on so far. */
  private have = 0;
  private listMode: Mode = 'unknown';
  private idsMode: Mode = 'unknown';
  private text = '';
  private readonly runs: EngineVersionsWire['runs'] = [];
  private unlabelled = false;

  constructor(private readonly options: SglangStreamOptions) {
    this.parser = new ModelStreamParser(options.parse);
  }

  /**
   * How this stream's chunks came, once a second chunk with tokens told: `legacy` is 0025436e's cumulative text
   * and logprobs with incremental output_ids.
   */
  get shape(): Mode | 'legacy' {
    return this.listMode === 'cumulative' && this.idsMode === 'incremental' ? 'legacy' : this.listMode;
  }

  /** The SSE text for one upstream `data:` payload. */
  read(data: string): string {
    if (data === '[DONE]') return 'data: [DONE]\n\n';
    if (this.done) return '';
    let chunk: SglangGenerateWire & { error?: unknown };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      return `data: ${data}\n\n`; // the relay reports the malformed chunk
    }
    if (typeof chunk !== 'object' || chunk === null) return `data: ${data}\n\n`;
    if (chunk.error !== undefined) {
      this.done = true;
      return `data: ${JSON.stringify({ error: chunk.error })}\n\n`;
    }
    try {
      return `data: ${JSON.stringify(this.convert(chunk))}\n\n`;
    } catch (error) {
      this.done = true;
      return `data: ${JSON.stringify({ error: { message: `SGLang's /generate stream cannot be captured exactly: ${(error as Error).message}` } })}\n\n`;
    }
  }

  private convert(chunk: SglangGenerateWire): ChatCompletionChunkWire {
    const meta = chunk.meta_info;
    if (typeof meta !== 'object' || meta === null) throw new Error('a chunk has no meta_info');
    const before = this.have;
    const total = Number.isInteger(meta.completion_tokens) ? meta.completion_tokens : before;
    const { ids, logprobs } = this.newTokens(chunk, before, total);
    this.have += ids.length;
    this.label(meta.weight_version, before, ids.length);
    const finish = meta.finish_reason;
    const finished = finish !== null && finish !== undefined;
    const delta: ChatCompletionChunkWire['choices'][number]['delta'] = { ...(this.parser.push(this.newText(chunk.text), finished) ?? {}) };
    const chat: ChatCompletionChunkWire = { id: meta.id, object: 'chat.completion.chunk', created: this.created, model: this.options.model, choices: [] };
    if (this.first) {
      this.first = false;
      delta.role = 'assistant';
      chat.prompt_token_ids = this.options.promptIds;
    }
    if (Object.keys(delta).length === 0) delta.content = '';
    const type = typeof finish === 'string' ? finish : (finish?.type ?? null);
    const reason = finished ? chatFinish(type, this.parser.toolsStreamed) : null;
    const matched = typeof finish === 'object' ? finish?.matched : undefined;
    chat.choices.push({
      index: 0,
      delta,
      logprobs: logprobs === null ? null : { content: logprobs.map(sglangLogprobEntry) },
      finish_reason: reason,
      // SGLang reports the matched stop (string or token id); it clears it when it reports parsed tool calls.
      stop_reason: reason === 'stop' && (typeof matched === 'string' || typeof matched === 'number') ? matched : null,
      token_ids: [...ids],
    });
    if (finished) {
      this.done = true;
      if (Number.isInteger(meta.prompt_tokens) && Number.isInteger(meta.completion_tokens)) {
        chat.usage = {
          prompt_tokens: meta.prompt_tokens,
          completion_tokens: meta.completion_tokens,
          total_tokens: meta.prompt_tokens + meta.completion_tokens,
          ...(Number.isInteger(meta.cached_tokens) ? { prompt_tokens_details: { cached_tokens: meta.cached_tokens as number } } : {}),
        };
      }
      const versions = this.versions(meta.weight_versions);
      if (versions !== null) chat.engine_versions = versions;
    }
    return chat;
  }

  /**
   * The chunk's new ids and logprob entries. The logprob entries carry the ids SGLang sampled and are never
   * dropped; output_ids must agree with them (all of it, its new part, or, where queued outputs were dropped,
   * the newest ids). Without logprobs the ids alone count. Throws Error when the chunk fits no reading.
   */
  private newTokens(chunk: SglangGenerateWire, before: number, total: number): { ids: readonly number[]; logprobs: readonly SglangTokenLogprobWire[] | null } {
    const entries = chunk.meta_info.output_token_logprobs;
    const outputIds = Array.isArray(chunk.output_ids) ? chunk.output_ids : undefined;
    if (Array.isArray(entries)) {
      const part = newPart(entries, before, total, this.listMode);
      if (part === undefined) throw new Error(`${entries.length} logprob entries after ${before} tokens do not make the engine's count of ${total}`);
      this.listMode = part.mode;
      const ids = part.items.map((entry) => entry[1]);
      if (outputIds !== undefined && !(sameIds(outputIds, ids) || (outputIds.length === total && sameIds(outputIds.slice(before), ids)) || sameIds(outputIds, ids.slice(ids.length - outputIds.length)))) {
        throw new Error(`output_ids ${JSON.stringify(outputIds.slice(0, 8))}… disagree with the logprob entries' ids ${JSON.stringify(ids.slice(0, 8))}…`);
      }
      if (outputIds !== undefined && before > 0) this.idsMode = outputIds.length === total ? 'cumulative' : 'incremental';
      return { ids, logprobs: part.items };
    }
    if (outputIds === undefined) return { ids: [], logprobs: null };
    // No logprobs: ids lost to a dropped output stay lost, and the count against usage says so (token_mismatch).
    const part = newPart(outputIds, before, total, this.listMode);
    if (part !== undefined) this.listMode = part.mode;
    return { ids: part?.items ?? outputIds, logprobs: null };
  }

  /** The new text: text comes the way the logprobs do (0025436e: both cumulative; newer: both either way). */
  private newText(text: string | null | undefined): string {
    const value = typeof text === 'string' ? text : '';
    const cumulative = this.listMode === 'cumulative' || (this.listMode === 'unknown' && this.text !== '' && value.startsWith(this.text));
    if (!cumulative) {
      this.text += value;
      return value;
    }
    if (!value.startsWith(this.text)) throw new Error('a chunk\'s text does not extend the text before it, though its lists are cumulative');
    const delta = value.slice(this.text.length);
    this.text = value;
    return delta;
  }

  /** The label `count` new tokens from `start` on came out under. */
  private label(label: string | null | undefined, start: number, count: number): void {
    if (count === 0) return;
    if (typeof label !== 'string') {
      this.unlabelled = true;
      return;
    }
    if (this.runs.at(-1)?.label !== label) this.runs.push({ start, label, version: policyVersionOfSglang(label) });
  }

  /** The engine's versions of this answer: its scheduler's spans when it sent them, else the per-chunk labels. */
  private versions(spans: unknown): EngineVersionsWire | null {
    if (Array.isArray(spans) && spans.every(isSpan)) {
      // A span may be empty (no tokens yet); the others cover the output from token 0 on.
      const runs = spans.filter((span) => span.end > span.start).map((span) => ({ start: span.start, label: span.version, version: policyVersionOfSglang(span.version) }));
      if (runs[0]?.start === 0) return { runs, exact: true };
    }
    return this.unlabelled || this.runs.length === 0 ? null : { runs: this.runs, exact: false };
  }
}

function isSpan(span: unknown): span is SglangWeightVersionSpanWire {
  const value = span as Partial<SglangWeightVersionSpanWire> | null;
  return typeof value?.version === 'string' && Number.isInteger(value.start) && Number.isInteger(value.end);
}
