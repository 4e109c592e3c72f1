// A streamed SGLang /generate answer, in each shape SGLang sends (built from its source, see
// sglang-stream-reader.ts): cumulative lists (newer default), incremental ones (--incremental-streaming-output,
// queued outputs coalesced), and 0025436e's mix (text and logprobs cumulative, output_ids incremental, queued
// outputs dropped but for the newest). Every shape decodes to the same capture, exactly what was sampled.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ParseOptions } from '../../../src/model-format/format-types.js';
import { ChatStreamDecoder } from '../../../src/upstream/chat-stream-decoder.js';
import { generateStreamAsChat } from '../../../src/upstream/engines/generate-stream-to-chat.js';
import type { SglangFinishReasonWire, SglangGenerateWire, SglangTokenLogprobWire } from '../../../src/upstream/engines/sglang-api-types.js';
import { SglangStreamReader } from '../../../src/upstream/engines/sglang-stream-reader.js';
import { UpstreamConnectionError } from '../../../src/upstream/upstream-client.js';
import type { ChatCompletionChunkWire } from '../../../src/upstream/vllm-api-types.js';

const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const PARSE: ParseOptions = { thinking: true, toolMode: { kind: 'auto' }, toolFormat: 'hermes', tools };
const PROMPT = [151644, 872, 198, 40, 151645, 198, 151644, 77091, 198];

/** What the model sampled: one text piece, id, logprob and weight label per token (the EOS last, no text). */
const PIECES = ['<think>', '\nLook', '.\n', '</think>', '\n\n', '<tool_call>', '\n{"name": "bash", ', '"arguments": {"command": "ls"}}\n', '</tool_call>', ''];
const IDS = PIECES.map((_, i) => (i === PIECES.length - 1 ? 151645 : 1000 + i));
const LOGPROBS: (number | null)[] = IDS.map((_, i) => -(i + 1) / 8);
const LABELS = IDS.map((_, i) => (i < 4 ? '0' : '1'));
const STOP: SglangFinishReasonWire = { type: 'stop', matched: 151645 };

type Shape = 'cumulative' | 'incremental' | 'legacy';

/**
 * The chunks SGLang writes for outputs of `steps` tokens each; a step listed in `queued` is not written alone:
 * its output waits in the tokenizer manager and goes out with the next one (coalesced, or dropped in legacy).
 */
function chunks(shape: Shape, steps: number[], queued: ReadonlySet<number> = new Set(), finish: SglangFinishReasonWire = STOP, logprobs = LOGPROBS): SglangGenerateWire[] {
  const out: SglangGenerateWire[] = [];
  let sent = 0;
  let end = 0;
  steps.forEach((step, s) => {
    end += step;
    if (queued.has(s)) return;
    const last = s === steps.length - 1;
    const entries = IDS.map((id, i): SglangTokenLogprobWire => [logprobs[i] ?? null, id, null]);
    // Legacy: the ids of the outputs before this one are gone; only this output's own delta is written.
    const ownStart = end - step;
    const from = shape === 'cumulative' ? 0 : shape === 'legacy' ? ownStart : sent;
    const logFrom = shape === 'incremental' ? sent : 0;
    out.push({
      text: PIECES.slice(shape === 'incremental' ? sent : 0, end).join(''),
      output_ids: IDS.slice(from, end),
      meta_info: {
        id: 'rid1',
        finish_reason: last ? finish : null,
        prompt_tokens: PROMPT.length,
        completion_tokens: end,
        cached_tokens: 0,
        weight_version: LABELS[end - 1],
        output_token_logprobs: entries.slice(logFrom, end),
      },
    });
    sent = end;
  });
  return out;
}

function read(payloads: readonly unknown[], reader = new SglangStreamReader({ promptIds: PROMPT, model: 'qwen', parse: PARSE })): { decoder: ChatStreamDecoder; errors: unknown[]; chunks: ChatCompletionChunkWire[] } {
  const decoder = new ChatStreamDecoder();
  const errors: unknown[] = [];
  const chat: ChatCompletionChunkWire[] = [];
  for (const payload of [...payloads.map((p) => JSON.stringify(p)), '[DONE]']) {
    const text = reader.read(payload);
    for (const event of text.split('\n\n').filter((e) => e !== '')) {
      const data = event.slice('data: '.length);
      if (data === '[DONE]') continue;
      const parsed = JSON.parse(data) as ChatCompletionChunkWire & { error?: unknown };
      if (parsed.error !== undefined) errors.push(parsed.error);
      else {
        chat.push(parsed);
        decoder.push(parsed);
      }
    }
  }
  return { decoder, errors, chunks: chat };
}

const EXPECTED_CAPTURE = { promptTokenIds: PROMPT, tokenIds: IDS, logprobs: LOGPROBS, finishReason: 'tool_calls', stopReason: null, promptTokens: PROMPT.length, completionTokens: IDS.length };

describe('SglangStreamReader', () => {
  it.each([
    ['cumulative', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], []],
    ['incremental', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], []],
    ['legacy', [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], []],
    ['cumulative', [3, 2, 4, 1], [1]],
    ['incremental', [2, 2, 1, 3, 2], [0, 3]],
    ['legacy', [2, 2, 1, 3, 2], [0, 3]],
  ] as const)('%s chunks of %j tokens (queued: %j): every sampled id and logprob, the parsed turn', (shape, steps, queued) => {
    const { decoder, errors, chunks: chat } = read(chunks(shape, [...steps], new Set(queued)));
    expect(errors).toEqual([]);
    expect(decoder.capture()).toEqual(EXPECTED_CAPTURE);
    expect(decoder.response().content).toEqual([
      { type: 'reasoning', text: '\nLook.\n' },
      { type: 'text', text: '\n\n' },
      { type: 'tool-call', id: expect.any(String), name: 'bash', arguments: '{"command": "ls"}' },
    ]);
    expect(chat[0]).toMatchObject({ id: 'rid1', prompt_token_ids: PROMPT, choices: [{ delta: { role: 'assistant' } }] });
    expect(chat.at(-1)?.usage).toEqual({ prompt_tokens: PROMPT.length, completion_tokens: IDS.length, total_tokens: PROMPT.length + IDS.length, prompt_tokens_details: { cached_tokens: 0 } });
  });

  it('the weight_version label of each chunk goes to its new tokens; the scheduler\'s spans, when sent, are exact', () => {
    const labelled = read(chunks('incremental', [2, 2, 2, 2, 2])).decoder.engineVersions;
    expect(labelled).toEqual({ runs: [{ start: 0, label: '0', version: 0 }, { start: 4, label: '1', version: 1 }], exact: false });
    const last = chunks('cumulative', [3, 3, 4]);
    last.at(-1)!.meta_info.weight_versions = [{ version: 'default', start: 0, end: 3 }, { version: '7', start: 3, end: 10 }];
    expect(read(last).decoder.engineVersions).toEqual({ runs: [{ start: 0, label: 'default', version: null }, { start: 3, label: '7', version: 7 }], exact: true });
    // A chunk without a label: nothing is claimed.
    const unlabelled = chunks('incremental', [5, 5]);
    delete unlabelled[0]!.meta_info.weight_version;
    expect(read(unlabelled).decoder.engineVersions).toBeNull();
  });

  it('orjson writes a -inf logprob as null: kept at vLLM\'s clamp -9999, the token kept', () => {
    const logprobs = LOGPROBS.map((value, i) => (i === 2 ? null : value));
    const { decoder, errors } = read(chunks('incremental', [5, 5], new Set(), STOP, logprobs));
    expect(errors).toEqual([]);
    expect(decoder.capture().logprobs).toEqual(LOGPROBS.map((value, i) => (i === 2 ? -9999 : value)));
    expect(decoder.capture().tokenIds).toEqual(IDS);
  });

  it('a plain stop keeps the matched stop; length and abort pass through', () => {
    const plain = { ...chunks('cumulative', [2])[0]!, text: 'Hi', meta_info: { ...chunks('cumulative', [2])[0]!.meta_info, finish_reason: STOP } };
    expect(read([plain], new SglangStreamReader({ promptIds: PROMPT, model: 'qwen', parse: { ...PARSE, toolMode: { kind: 'none' } } })).decoder.capture()).toMatchObject({ finishReason: 'stop', stopReason: 151645 });
    expect(read(chunks('cumulative', [4, 6], new Set(), { type: 'length', length: 10 })).decoder.capture().finishReason).toBe('length');
    const aborted = read(chunks('legacy', [3, 2], new Set(), { type: 'abort', message: 'Abort in waiting queue' }));
    expect(aborted.decoder.capture()).toMatchObject({ finishReason: 'abort', tokenIds: IDS.slice(0, 5) });
  });

  it('an abort before prefill (no ids, no logprobs, no label) ends the stream as an abort with the sent prompt', () => {
    const { decoder, errors } = read([{ text: '', meta_info: { id: 'rid1', finish_reason: { type: 'abort', message: 'Abort before prefill' }, prompt_tokens: 0, completion_tokens: 0 } }]);
    expect(errors).toEqual([]);
    expect(decoder.capture()).toMatchObject({ promptTokenIds: PROMPT, tokenIds: [], finishReason: 'abort', completionTokens: 0 });
    expect(decoder.engineVersions).toBeNull();
  });

  it('an error event passes through; chunks that fit no reading end the stream in a typed error, never half-read', () => {
    const [first, second] = chunks('incremental', [4, 6]);
    expect(read([first, { error: { message: 'Request is disconnected' } }, second]).errors).toEqual([{ message: 'Request is disconnected' }]);
    // Lost logprob entries (the engine counted 10, 7 arrived).
    const short = { ...second!, meta_info: { ...second!.meta_info, output_token_logprobs: second!.meta_info.output_token_logprobs!.slice(3) } };
    const lost = read([first, short]);
    expect(lost.errors).toEqual([{ message: expect.stringMatching(/cannot be captured exactly: 3 logprob entries after 4 tokens do not make the engine's count of 10/) }]);
    // output_ids that are not the logprob entries' ids.
    const other = { ...second!, output_ids: [1, 2, 3, 4, 5, 6] };
    expect(read([first, other]).errors).toEqual([{ message: expect.stringMatching(/output_ids .* disagree/) }]);
    // Cumulative lists whose text does not extend the text before it.
    const [a, b] = chunks('cumulative', [4, 6]);
    expect(read([a, { ...b!, text: 'something else' }]).errors).toEqual([{ message: expect.stringMatching(/does not extend/) }]);
  });
});

function upstream(status: number, parts: string[], fail?: Error): { status: number; body: IncomingMessage; timedOut: () => boolean } {
  async function* body(): AsyncGenerator<Buffer> {
    for (const part of parts) yield Buffer.from(part);
    if (fail) throw fail;
  }
  return { status, body: Readable.from(body()) as unknown as IncomingMessage, timedOut: () => false };
}

describe('generateStreamAsChat', () => {
  const options = { promptIds: PROMPT, model: 'qwen', parse: PARSE };

  it('converts the stream as it comes, in any byte split', async () => {
    const text = [...chunks('incremental', [3, 3, 4]).map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'].join('');
    const parts = text.match(/[\s\S]{1,37}/g)!;
    const answer = await generateStreamAsChat(upstream(200, parts), options);
    expect(answer.status).toBe(200);
    const decoder = new ChatStreamDecoder();
    for (const event of (await new Response(Readable.toWeb(answer.body) as ReadableStream).text()).split('\n\n')) {
      if (event.startsWith('data: {')) decoder.push(JSON.parse(event.slice(6)) as ChatCompletionChunkWire);
    }
    expect(decoder.capture()).toEqual(EXPECTED_CAPTURE);
  });

  it('a refusal as the first event (HTTP 200 already sent) answers the 400 a non-streaming /generate gives', async () => {
    const message = "The input (40000 tokens) is longer than the model's context length (32768 tokens).";
    const answer = await generateStreamAsChat(upstream(200, [`data: ${JSON.stringify({ error: { message } })}\n\n`, 'data: [DONE]\n\n']), options);
    expect(answer.status).toBe(400);
    expect(JSON.parse(await new Response(Readable.toWeb(answer.body) as ReadableStream).text())).toEqual({ error: { message } });
  });

  it('an upstream that dies before its first event is an UpstreamConnectionError; non-200 answers pass unchanged', async () => {
    await expect(generateStreamAsChat(upstream(200, ['data: {"te'], new Error('socket hang up')), options)).rejects.toBeInstanceOf(UpstreamConnectionError);
    const refused = upstream(503, ['{"error":"x"}']);
    expect(await generateStreamAsChat(refused, options)).toBe(refused);
  });
});
