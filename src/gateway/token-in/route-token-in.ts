// One call in token-in mode: plan it over the session's lineages, send it as token ids through the engine
// adapter (vLLM /v1/completions, SGLang /generate), the answer read back in the chat shape.
import type { CallRecord } from '../../capture/call-record.js';
import type { FormatMessage, FormatTool, ParseOptions, ToolFormat } from '../../model-format/format-types.js';
import type { EngineAdapter, TokenInCall } from '../../upstream/engines/engine.js';
import type { UpstreamClient, UpstreamResponse } from '../../upstream/upstream-client.js';
import type { ChatCompletionRequestWire } from '../../upstream/vllm-api-types.js';
import type { CallMode, TokenInFallback } from './token-in-fallback.js';
import { parsedTurn } from './parsed-turn.js';
import { extendLineage, planTokenIn, type TokenInLineage } from './token-in-lineages.js';
import type { TokenInSessions } from './token-in-sessions.js';

export interface TokenInOptions {
  sessions: TokenInSessions;
  /** The upstream's tool-call format (vLLM `--tool-call-parser`); default hermes. */
  toolFormat?: ToolFormat;
  /** The upstream's context length: completions default to 16 new tokens, chat to the rest of the context. */
  maxModelLen?: number | null;
  /** Tokens between the outputs of a streamed token-in answer (SGLang --stream-interval; default 1). */
  streamInterval?: number;
  /**
   * A call that continues no lineage goes upstream as token ids too: the upstream's own rendering of the
   * conversation (from /tokenize), recorded as a chat-mode call with its fallback reason. For an engine
   * whose chat answers carry no ids, or stream none (SGLang); otherwise such calls go the chat way.
   */
  renderFallbacks?: boolean;
}

/** How a call goes upstream: as token ids continuing a lineage, or the chat way (with why). */
export interface TokenInRoute {
  mode: CallMode;
  fallback: TokenInFallback | null;
  /** The upstream body actually sent. */
  body: Buffer;
  /** The upstream answers as a stream (SSE): each sampled token shows as it comes. */
  streams: boolean;
  /** Tokens the streamed answer may hold back (stream interval − 1; 0 when each token shows as it comes). */
  heldBack: number;
  send(signal: AbortSignal, accept: string): Promise<UpstreamResponse>;
  /** Called with the committed record: an ok call extends (or starts) a lineage. */
  committed(record: CallRecord): void;
}

function parseOptions(body: ChatCompletionRequestWire, toolFormat: ToolFormat): ParseOptions {
  const tools = body.tools && body.tools.length > 0 && body.tool_choice !== 'none' ? (body.tools as FormatTool[]) : null;
  return {
    thinking: body.chat_template_kwargs?.['enable_thinking'] !== false,
    toolMode: tools ? { kind: 'auto' } : { kind: 'none' },
    toolFormat,
    tools,
  };
}

function unsupported(body: ChatCompletionRequestWire): string | undefined {
  if (body.tool_choice === 'required' || typeof body.tool_choice === 'object') return 'tool_choice required or named needs the chat endpoint’s guided decoding';
  const images = body.messages.some((message) => Array.isArray(message.content) && message.content.some((part) => part.type !== 'text'));
  return images ? 'the conversation carries images' : undefined;
}

/** The upstream's rendering of the conversation, and its context length (vLLM's and SGLang's /tokenize answer both). */
async function tokenizeConversation(
  upstream: UpstreamClient,
  body: ChatCompletionRequestWire,
  signal: AbortSignal,
): Promise<{ tokens: number[]; maxModelLen: number | null } | undefined> {
  const request = { model: body.model, messages: body.messages, tools: body.tools, chat_template_kwargs: body.chat_template_kwargs, add_generation_prompt: true };
  try {
    const answer = await upstream.tokenize(Buffer.from(JSON.stringify(request)), signal);
    if (answer.status !== 200) return undefined;
    const { tokens, max_model_len: maxModelLen } = JSON.parse(answer.body.toString('utf8')) as { tokens?: unknown; max_model_len?: unknown };
    if (!Array.isArray(tokens) || tokens.length === 0 || !tokens.every((id) => Number.isInteger(id))) return undefined;
    return { tokens: tokens as number[], maxModelLen: Number.isInteger(maxModelLen) ? (maxModelLen as number) : null };
  } catch {
    return undefined;
  }
}

/**
 * Routes one call of a session. `body` is the chat body as the chat route sends it; a call sent as token ids
 * streams when `streamIds` (every engine streams ids on its token-in route, SGLang on none of its chat answers).
 * Contract: never throws for a conversation it cannot splice; it then answers a chat route with the typed
 * fallback reason (or, with renderFallbacks, the upstream's own rendering sent as token ids, with the same reason).
 */
export async function routeTokenIn(
  upstream: UpstreamClient,
  engine: EngineAdapter,
  sessionId: number,
  body: ChatCompletionRequestWire,
  streamIds: boolean,
  options: TokenInOptions,
  signal: AbortSignal,
): Promise<TokenInRoute> {
  const lineages = options.sessions.lineages(sessionId);
  const format = parseOptions(body, options.toolFormat ?? 'hermes');
  let continued: TokenInLineage | undefined;
  const committed = (record: CallRecord): void => {
    const { promptTokenIds, tokenIds } = record.capture;
    if (record.status !== 'ok' || !promptTokenIds || !tokenIds || !record.response) return;
    extendLineage(lineages, continued, promptTokenIds, tokenIds, parsedTurn(record.response));
    options.sessions.trim(lineages);
  };
  const chatBody = Buffer.from(JSON.stringify(body));
  const chat = (fallback: TokenInFallback): TokenInRoute => ({
    mode: 'chat',
    fallback,
    body: chatBody,
    streams: body.stream === true,
    heldBack: 0,
    send: (s, accept) => upstream.chatCompletions(chatBody, s, accept),
    committed,
  });
  const asIds = (mode: CallMode, fallback: TokenInFallback | null, promptIds: number[], maxModelLen: number | null): TokenInRoute => {
    const call: TokenInCall = { chat: { ...body, stream: streamIds }, promptIds, maxModelLen: options.maxModelLen ?? maxModelLen, parse: format };
    const sent = engine.tokenInBody(call);
    const heldBack = streamIds ? Math.max(0, (options.streamInterval ?? 1) - 1) : 0;
    return { mode, fallback, body: sent, streams: streamIds, heldBack, send: (s, accept) => engine.sendTokenIn(upstream, call, sent, s, accept), committed };
  };
  const why = unsupported(body);
  if (why) return chat({ reason: 'unsupported-request', detail: why });
  if (lineages.length === 0 && options.renderFallbacks !== true) return chat({ reason: 'no-lineage', detail: 'the session has no open lineage yet' });
  const rendered = await tokenizeConversation(upstream, body, signal);
  if (!rendered) return chat({ reason: 'tokenize-failed', detail: 'the upstream’s /tokenize answered no token ids for the conversation' });
  const plan = lineages.length === 0 ? ({ mode: 'chat', fallback: { reason: 'no-lineage', detail: 'the session has no open lineage yet' } } as const) : planTokenIn(lineages, body.messages as unknown as FormatMessage[], rendered.tokens);
  if (plan.mode === 'chat') return options.renderFallbacks === true ? asIds('chat', plan.fallback, rendered.tokens, rendered.maxModelLen) : chat(plan.fallback);
  continued = plan.lineage;
  return asIds('token_in', null, plan.promptIds, rendered.maxModelLen);
}
