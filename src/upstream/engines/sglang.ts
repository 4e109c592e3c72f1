// The SGLang adapter: chat with return_token_ids on non-streaming calls only (a streaming client gets the
// answer relayed as a stream), token-in through /tokenize + the native /generate with input_ids, streamed
// when the client streams (so a keep pause sees every sampled token as it comes).
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { readBody } from '../upstream-client.js';
import type { EngineAdapter } from './engine.js';
import { SGLANG_CONTROL } from './sglang-control.js';
import { generateRequest, generateToChat } from './generate-to-chat.js';
import { generateStreamAsChat } from './generate-stream-to-chat.js';
import { inspectSglang } from './inspect-sglang.js';
import { readSglangChat } from './read-sglang-chat.js';
import type { SglangGenerateWire } from './sglang-api-types.js';
import { readSglangMetrics, SGLANG_METRICS_ADVICE } from './sglang-metrics.js';

export const SGLANG_ENGINE: EngineAdapter = {
  name: 'sglang',
  label: 'SGLang',
  streamsChatTokenIds: false,
  promptIdsPlace: 'first-choice',
  noTokenIdsMessage:
    'The upstream (SGLang) returned no token ids (choices[0].prompt_token_ids / token_ids), so this call cannot be ' +
    'training data and polar will not re-tokenize text to fill the gap. Fix: serve with an SGLang release after ' +
    '2026-07-12 (PR #30917: return_token_ids on non-streaming chat), or run with --token-in (calls go to /generate as token ids).',
  readChatCompletion: readSglangChat,
  tokenInBody: (call) => Buffer.from(JSON.stringify(generateRequest(call.chat, call.promptIds, call.maxModelLen))),
  async sendTokenIn(client, call, body, signal) {
    const stream = call.chat.stream === true;
    const response = await client.generate(body, signal, stream ? 'text/event-stream' : 'application/json');
    if (stream) return generateStreamAsChat(response, { promptIds: call.promptIds, model: call.chat.model, parse: call.parse });
    if (response.status !== 200) return response;
    const raw = await readBody(response.body);
    let text: string;
    try {
      text = JSON.stringify(generateToChat(JSON.parse(raw.toString('utf8')) as SglangGenerateWire, call.promptIds, call.chat.model, call.parse));
    } catch {
      text = raw.toString('utf8'); // the relay reports it as not a chat.completion
    }
    return { ...response, body: Readable.from([Buffer.from(text)]) as unknown as IncomingMessage };
  },
  inspect: inspectSglang,
  readMetrics: readSglangMetrics,
  metricsAdvice: SGLANG_METRICS_ADVICE,
  control: SGLANG_CONTROL,
};
