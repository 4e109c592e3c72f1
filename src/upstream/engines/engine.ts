// One adapter per inference-server family (vLLM, SGLang): how a call asks for token ids and logprobs,
// which route it takes, how the answer is read back into the capture, how token-in sends ids, and how
// the server is probed. The gateway and the preflight talk to this interface, never to an engine's routes.
// How to read the engine's `/metrics` (readMetrics, metricsAdvice) and how to drive it (control: pause
// keep/abort, weight update with a version, sleep/wake, LoRA load) are members too.
import type { ParseOptions } from '../../model-format/format-types.js';
import type { EngineMetrics } from '../metrics/engine-metrics.js';
import type { MetricSet } from '../metrics/metric-set.js';
import type { PreflightOptions } from '../preflight/preflight-options.js';
import type { UpstreamProfile } from '../preflight/upstream-profile.js';
import type { PromptIdsPlace } from '../split-prompt-ids.js';
import type { UpstreamClient, UpstreamResponse } from '../upstream-client.js';
import type { ChatCompletionRequestWire, ChatCompletionWire } from '../vllm-api-types.js';
import type { EngineName } from './engine-name.js';
import type { EngineControl } from './engine-control.js';

export type { EngineName } from './engine-name.js';

/** One call sent as token ids (token-in mode). */
export interface TokenInCall {
  /** The chat body the call would have sent: its model, sampling and stream flag. */
  chat: ChatCompletionRequestWire;
  /** The prompt: the lineage's exact tokens plus the new tail. */
  promptIds: number[];
  /** The served context length (the default output budget when the client set none). */
  maxModelLen: number | null | undefined;
  /** How the sampled text is parsed into reasoning, content and tool calls. */
  parse: ParseOptions;
}

export interface EngineAdapter {
  readonly name: EngineName;
  /** `vLLM` / `SGLang`, for messages. */
  readonly label: string;
  /**
   * True when a streamed chat answer carries the sampled ids (vLLM >= 0.10.2). False (SGLang: chat ids on
   * non-streaming answers only): chat calls go upstream non-streaming and a streaming client gets the answer
   * relayed as a stream, as with --non-streaming-upstream; token-in calls still stream (sendTokenIn), and calls
   * that continue no lineage take the token-in route too (the server's own rendering).
   */
  readonly streamsChatTokenIds: boolean;
  /** Where a non-streaming chat answer holds the prompt ids (split off unparsed for the store's commit worker). */
  readonly promptIdsPlace: PromptIdsPlace;
  /** The refusal of an answer without token ids: what is wrong and how to fix it for this family. */
  readonly noTokenIdsMessage: string;
  /**
   * A non-streaming chat answer (parsed JSON) in the vLLM `chat.completion` shape the relays decode.
   * Contract: throws Error for a body that is not a chat completion; never fills in missing ids.
   */
  readChatCompletion(body: unknown): ChatCompletionWire;
  /** The upstream body of a token-in call (stored as the call's upstream request). */
  tokenInBody(call: TokenInCall): Buffer;
  /**
   * Sends a token-in body; resolves with the answer in the chat shape the relays read (streamed when
   * the chat body streams and the engine can). Non-200 answers pass unchanged. Same contract as
   * UpstreamClient.chatCompletions.
   */
  sendTokenIn(client: UpstreamClient, call: TokenInCall, body: Buffer, signal: AbortSignal, accept: string): Promise<UpstreamResponse>;
  /** Every preflight check for this family, without throwing (`polar doctor` prints them). */
  inspect(options: PreflightOptions): Promise<UpstreamProfile>;
  /** One scrape of the server's `GET /metrics` (at the server root) in polar's model; absent series stay null. */
  readMetrics(metrics: MetricSet): EngineMetrics;
  /** What to do when the server's /metrics does not answer (SGLang: launch with --enable-metrics). */
  readonly metricsAdvice: string;
  /** Engine control: pause keep/abort, resume, sleep/wake, weight updates with a version, and their probe. */
  readonly control: EngineControl;
}
