// Benchmark: what capturing an SGLang /generate answer costs the gateway, streamed in each shape SGLang writes
// (cumulative: newer default; incremental: --incremental-streaming-output; legacy: 0025436e) against one
// non-streamed answer, per output length. The chunks are built as SGLang writes them (one output per token,
// --stream-interval 1, a [logprob, id, null] entry per token) and fed to the gateway's own reader
// (sglang-stream-reader.ts) and chat stream decoder; what is timed is the gateway's work only (JSON.parse of each
// chunk, conversion, parsing the text into the turn, decoding). Cumulative chunks repeat everything so far, so
// their bytes and the gateway's work grow with the square of the output.
import type { ParseOptions } from '../../src/model-format/format-types.js';
import { ChatStreamDecoder } from '../../src/upstream/chat-stream-decoder.js';
import { decodeChatCompletion } from '../../src/upstream/decode-chat-completion.js';
import { generateToChat } from '../../src/upstream/engines/generate-to-chat.js';
import { readSglangChat } from '../../src/upstream/engines/read-sglang-chat.js';
import type { SglangGenerateWire, SglangTokenLogprobWire } from '../../src/upstream/engines/sglang-api-types.js';
import { SglangStreamReader } from '../../src/upstream/engines/sglang-stream-reader.js';
import type { ChatCompletionChunkWire } from '../../src/upstream/vllm-api-types.js';
import type { Benchmark } from './benchmark.js';
import { formatNumber, markdownTable, type Cell } from './markdown-table.js';

const PARSE: ParseOptions = { thinking: true, toolMode: { kind: 'none' }, toolFormat: 'hermes', tools: null };
const PROMPT = Array.from({ length: 2000 }, (_, i) => 1000 + (i % 5000));
const LENGTHS = [256, 1024, 4096];
type Shape = 'cumulative' | 'incremental' | 'legacy';

/** A sampled output of n tokens: text pieces of 3-5 characters, ids, logprobs. */
function output(n: number): { texts: string[]; ids: number[]; entries: SglangTokenLogprobWire[] } {
  const texts = Array.from({ length: n }, (_, i) => (i === 0 ? '<think>' : i === n - 1 ? '' : ` w${i % 97}`));
  const ids = texts.map((_, i) => (i === n - 1 ? 151645 : 2000 + ((i * 7919) % 100_000)));
  const entries = ids.map((id, i): SglangTokenLogprobWire => [-((i % 13) + 1) / 7, id, null]);
  return { texts, ids, entries };
}

/** The chunk SGLang writes after token `end` (exclusive), in `shape`. */
function chunkText(shape: Shape, out: ReturnType<typeof output>, end: number, textSoFar: string, piece: string): string {
  const n = out.ids.length;
  const chunk: SglangGenerateWire = {
    text: shape === 'incremental' ? piece : textSoFar,
    output_ids: shape === 'cumulative' ? out.ids.slice(0, end) : out.ids.slice(end - 1, end),
    meta_info: {
      id: 'bench',
      finish_reason: end === n ? { type: 'stop', matched: 151645 } : null,
      prompt_tokens: PROMPT.length,
      completion_tokens: end,
      cached_tokens: 0,
      weight_version: 'default',
      output_token_logprobs: shape === 'incremental' ? out.entries.slice(end - 1, end) : out.entries.slice(0, end),
    },
  };
  return JSON.stringify(chunk);
}

/** Gateway ms and SGLang bytes for one streamed answer of `n` tokens. */
function streamed(shape: Shape, n: number): { ms: number; bytes: number } {
  const out = output(n);
  const reader = new SglangStreamReader({ promptIds: PROMPT, model: 'bench', parse: PARSE });
  const decoder = new ChatStreamDecoder();
  let ms = 0;
  let bytes = 0;
  let text = '';
  for (let end = 1; end <= n; end++) {
    text += out.texts[end - 1];
    const data = chunkText(shape, out, end, text, out.texts[end - 1] as string);
    bytes += data.length + 8;
    const started = performance.now();
    for (const event of reader.read(data).split('\n\n')) if (event.startsWith('data: {')) decoder.push(JSON.parse(event.slice(6)) as ChatCompletionChunkWire);
    ms += performance.now() - started;
  }
  const capture = decoder.capture();
  if (capture.tokenIds?.length !== n || capture.logprobs?.length !== n) throw new Error(`${shape} ${n}: captured ${capture.tokenIds?.length ?? 0} ids`);
  return { ms, bytes };
}

/** Gateway ms and bytes for the same answer not streamed (one JSON body). */
function whole(n: number): { ms: number; bytes: number } {
  const out = output(n);
  const body = JSON.stringify({ text: out.texts.join(''), output_ids: out.ids, meta_info: { id: 'bench', finish_reason: { type: 'stop', matched: 151645 }, prompt_tokens: PROMPT.length, completion_tokens: n, cached_tokens: 0, weight_version: 'default', output_token_logprobs: out.entries } });
  const started = performance.now();
  const decoded = decodeChatCompletion(readSglangChat(generateToChat(JSON.parse(body) as SglangGenerateWire, PROMPT, 'bench', PARSE)));
  const ms = performance.now() - started;
  if (decoded.capture.tokenIds?.length !== n) throw new Error(`whole ${n}: captured ${decoded.capture.tokenIds?.length ?? 0} ids`);
  return { ms, bytes: body.length };
}

/** The median of `repeats` runs (ms), with the bytes of one. */
function measure(run: () => { ms: number; bytes: number }, repeats: number): { ms: number; bytes: number } {
  const runs = Array.from({ length: repeats }, run);
  const sorted = runs.map((r) => r.ms).sort((a, b) => a - b);
  return { ms: sorted[Math.floor(sorted.length / 2)] as number, bytes: runs[0]?.bytes ?? 0 };
}

export function renderSglangStream(): string {
  const rows: Cell[][] = [];
  for (const n of LENGTHS) {
    const base = measure(() => whole(n), 5);
    rows.push(['not streamed (one JSON)', n, formatNumber(base.bytes / 1024, 0), formatNumber(base.ms, 2), formatNumber((base.ms * 1000) / n, 1)]);
    for (const shape of ['incremental', 'legacy', 'cumulative'] as const) {
      const result = measure(() => streamed(shape, n), n >= 4096 && shape !== 'incremental' ? 1 : 3);
      rows.push([`streamed, ${shape}`, n, formatNumber(result.bytes / 1024, 0), formatNumber(result.ms, 2), formatNumber((result.ms * 1000) / n, 1)]);
    }
  }
  return [
    markdownTable(['SGLang /generate answer', 'output tokens', 'KiB from SGLang', 'gateway ms/call', 'gateway us/token'], rows),
    '',
    'One output per token (--stream-interval 1), a 2000-token prompt (its ids are polar\'s own, not SGLang\'s), logprobs',
    'requested as polar does. Timed: the gateway\'s parsing and conversion of what SGLang sent (median of 3-5 runs; one run',
    'for the longest legacy and cumulative answers). legacy and cumulative chunks repeat the text and every logprob entry',
    'so far in each chunk: their bytes and cost grow with the square of the output length.',
  ].join('\n');
}

export const sglangStream: Benchmark = {
  name: 'SGLang /generate capture cost: streamed in each chunk shape vs one JSON answer',
  run: async () => renderSglangStream(),
};
