// The preflight's `stream-token-ids` check on SGLang: one short streamed /generate (8 tokens), read by the same
// reader the gateway uses (sglang-stream-reader.ts), must carry every sampled id with its logprob and end with
// [DONE]. It says how the server writes its chunks, whether it reports per-token weight_versions spans, and
// what its --stream-interval (/get_server_info) means for a keep pause: tokens held back from the stream cannot
// be given a version at the pause unless the spans are reported.
import { EXIT_CODES } from '../../errors.js';
import { ChatStreamDecoder } from '../chat-stream-decoder.js';
import type { PreflightRun } from '../preflight/preflight-run.js';
import { errorMessageOf, ProbeUnreachableError, probeStream, type StreamAnswer } from '../preflight/probe-http.js';
import type { ChatCompletionChunkWire } from '../vllm-api-types.js';
import type { SglangGenerateWire, SglangServerInfoWire } from './sglang-api-types.js';
import { SglangStreamReader } from './sglang-stream-reader.js';

const NO_STREAM_HINT =
  'Token-in calls then go to /generate whole, and a keep pause throws away the calls in flight (version-unobserved). Check the SGLang server log; /generate streams in every SGLang release polar knows.';

/** Measured by `npm run bench -- sglang` (test/bench/sglang-stream.ts) on a 2-core host. */
const CUMULATIVE_HINT =
  'Each chunk repeats the text and every logprob so far: SGLang and polar\'s gateway both work O(n²) per answer (measured: about 2.5 s of gateway CPU and 330 MB for one 4096-token answer). Restart SGLang with --incremental-streaming-output (14 us/token).';

/** What the probe stream showed, or why it failed. */
export type GenerateStreamProbe = { ok: true; shape: 'cumulative' | 'incremental' | 'legacy' | 'unknown'; spans: boolean; tokens: number } | { ok: false; why: string };

/** One streamed /generate of 8 tokens, read as the gateway reads it (null: no prompt ids to send). Never throws for a bad stream. */
export async function probeGenerateStream(run: PreflightRun, promptIds: readonly number[] | null): Promise<GenerateStreamProbe | null> {
  if (promptIds === null) return null;
  let answer: StreamAnswer<SglangGenerateWire & { error?: unknown }>;
  try {
    answer = await probeStream(new URL('generate', run.root), run.signal, {
      input_ids: promptIds,
      sampling_params: { max_new_tokens: 8, temperature: 1, top_p: 1, top_k: -1, ignore_eos: true },
      return_logprob: true,
      logprob_start_len: -1,
      stream: true,
    });
  } catch (error) {
    if (error instanceof ProbeUnreachableError) return { ok: false, why: error.message };
    throw error;
  }
  if (answer.status !== 200) return { ok: false, why: `a streamed /generate answered ${answer.status}: ${errorMessageOf(answer)}` };
  const reader = new SglangStreamReader({ promptIds: [...promptIds], model: run.profile.model, parse: { thinking: true, toolMode: { kind: 'none' }, toolFormat: 'hermes', tools: null } });
  const decoder = new ChatStreamDecoder();
  for (const chunk of answer.chunks) {
    for (const event of reader.read(JSON.stringify(chunk)).split('\n\n')) {
      if (!event.startsWith('data: {')) continue;
      const chat = JSON.parse(event.slice('data: '.length)) as ChatCompletionChunkWire & { error?: { message?: string } };
      if (chat.error !== undefined) return { ok: false, why: `the stream ${chunk.error !== undefined ? 'carried an error' : 'cannot be read exactly'}: ${chat.error.message ?? JSON.stringify(chat.error)}` };
      decoder.push(chat);
    }
  }
  const capture = decoder.capture();
  const ids = capture.tokenIds?.length ?? 0;
  if (!decoder.finished || answer.done !== true) return { ok: false, why: `the stream ended without ${decoder.finished ? '[DONE]' : 'a finish_reason'} (${answer.chunks.length} chunks)` };
  if (ids === 0 || capture.logprobs?.length !== ids || capture.completionTokens !== ids) {
    return { ok: false, why: `the stream carried ${ids} ids and ${capture.logprobs?.length ?? 0} logprobs for ${capture.completionTokens ?? '?'} completion tokens` };
  }
  return { ok: true, shape: reader.shape, spans: decoder.engineVersions?.exact === true, tokens: ids };
}

/** Records the `stream-token-ids` check of a probeGenerateStream result. */
export function checkGenerateStream(run: PreflightRun, result: GenerateStreamProbe | null, server: SglangServerInfoWire | undefined): void {
  const { profile, pass, fail } = run;
  const interval = typeof server?.stream_interval === 'number' ? server.stream_interval : null;
  profile.streamInterval = interval;
  if (result === null) {
    fail('stream-token-ids', 'no prompt ids to probe a streamed /generate with (neither /tokenize nor chat gave any)', NO_STREAM_HINT, EXIT_CODES.upstreamUnavailable, true);
    return;
  }
  if (!result.ok) {
    profile.generateStream = null;
    // A warning: token-in still works with /generate answered whole.
    fail('stream-token-ids', `streamed /generate does not give every sampled id: ${result.why}`, NO_STREAM_HINT, EXIT_CODES.upstreamUnavailable, true);
    return;
  }
  profile.streamTokenIds = true;
  profile.generateStream = { shape: result.shape, weightVersionSpans: result.spans };
  const how = `${result.shape === 'unknown' ? 'one chunk' : `${result.shape} chunks`}, --stream-interval ${interval ?? '?'}, per-token weight_versions spans ${result.spans ? 'reported' : 'not reported'}`;
  const scope = 'chat calls are captured non-streaming (SGLang streams chat without ids); --token-in calls stream through /generate';
  if (interval !== null && interval > 1 && !result.spans) {
    fail(
      'stream-token-ids',
      `streamed /generate carries every sampled id (${how}), but SGLang holds up to ${interval - 1} sampled tokens back from the stream: a token-in call spanning a keep pause cannot be given its versions and is not trained on (version-unobserved: stream-interval)`,
      'Restart SGLang with --stream-interval 1 (its default), or use a release that reports meta_info.weight_versions.',
      EXIT_CODES.config,
      true,
    );
    return;
  }
  pass(
    'stream-token-ids',
    `streamed /generate carries every sampled id and logprob (${how}): ${scope}, and a keep pause sees each token's version`,
    result.shape === 'cumulative' || result.shape === 'legacy' ? CUMULATIVE_HINT : undefined,
  );
}
