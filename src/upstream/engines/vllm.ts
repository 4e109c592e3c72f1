// The vLLM adapter: chat with return_token_ids (streamed or not), token-in through /tokenize + /v1/completions.
import { NO_TOKEN_IDS_MESSAGE } from '../../capture/check-token-capture.js';
import type { ChatCompletionWire } from '../vllm-api-types.js';
import type { EngineAdapter } from './engine.js';
import { VLLM_CONTROL } from './vllm-control.js';
import { inspectVllm } from './inspect-vllm.js';
import { readVllmMetrics, VLLM_METRICS_ADVICE } from './vllm-metrics.js';
import { completionAsChat, completionsBody } from './vllm-token-in.js';

export const VLLM_ENGINE: EngineAdapter = {
  name: 'vllm',
  label: 'vLLM',
  streamsChatTokenIds: true,
  promptIdsPlace: 'top',
  noTokenIdsMessage: NO_TOKEN_IDS_MESSAGE,
  // vLLM's answer is already the shape the relays decode (vllm-api-types.ts).
  readChatCompletion: (body) => body as ChatCompletionWire,
  tokenInBody: (call) => Buffer.from(JSON.stringify(completionsBody(call.chat, call.promptIds, call.maxModelLen))),
  sendTokenIn: async (client, call, body, signal, accept) => completionAsChat(await client.completions(body, signal, accept), call.chat.stream, call.parse),
  inspect: inspectVllm,
  readMetrics: readVllmMetrics,
  metricsAdvice: VLLM_METRICS_ADVICE,
  control: VLLM_CONTROL,
};
