// One call in token-in mode: plan it over the session's lineages, send it as token ids, adapt the answer to chat.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { CallRecord } from '../../capture/call-record.js';
import type { FormatMessage, FormatTool, ParseOptions, ToolFormat } from '../../model-format/format-types.js';
import { readBody, type UpstreamClient, type UpstreamResponse } from '../../upstream/upstream-client.js';
import type { ChatCompletionRequestWire } from '../../upstream/vllm-api-types.js';
import { completionToChat, CompletionStreamToChat, type CompletionWire } from './completion-to-chat.js';
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
}

/** How a call goes upstream: as token ids continuing a lineage, or the chat way (with why). */
export interface TokenInRoute {
  mode: CallMode;
  fallback: TokenInFallback | null;
  /** The upstream body actually sent. */
  body: Buffer;
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

/** The upstream's rendering of the conversation, and its context length (vLLM's /tokenize answers both). */
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
 * The /v1/completions body: the chat body's sampling, the token-id prompt. Without max_tokens it asks for
 * the rest of the context, as the chat endpoint does (completions would stop after 16 tokens).
 */
function completionsBody(body: ChatCompletionRequestWire, promptIds: number[], maxModelLen: number | null | undefined): Record<string, unknown> {
  const maxTokens = body.max_tokens ?? (maxModelLen ? maxModelLen - promptIds.length : undefined);
  const { model, temperature, top_p, top_k, min_p, seed, stop, presence_penalty, frequency_penalty, stream, stream_options, skip_special_tokens } = body;
  return {
    model,
    prompt: promptIds,
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...{ temperature, top_p, top_k, min_p, seed, stop, presence_penalty, frequency_penalty, stream, stream_options, skip_special_tokens },
    logprobs: body.top_logprobs ?? 0,
    return_token_ids: true,
  };
}

/** The answer of /v1/completions, in the chat shape the relays read (non-200 answers pass unchanged). */
async function adapt(response: UpstreamResponse, stream: boolean, options: ParseOptions): Promise<UpstreamResponse> {
  if (response.status !== 200) return response;
  if (stream) {
    const converted = new CompletionStreamToChat(options);
    response.body.on('error', (error) => converted.destroy(error));
    converted.on('close', () => {
      if (!response.body.readableEnded) response.body.destroy();
    });
    response.body.pipe(converted);
    return { ...response, body: converted as unknown as IncomingMessage };
  }
  const raw = await readBody(response.body);
  let text: string;
  try {
    text = JSON.stringify(completionToChat(JSON.parse(raw.toString('utf8')) as CompletionWire, options));
  } catch {
    text = raw.toString('utf8'); // the relay reports it as not a chat.completion
  }
  return { ...response, body: Readable.from([Buffer.from(text)]) as unknown as IncomingMessage };
}

/**
 * Routes one call of a session. Contract: never throws for a conversation it cannot splice; it then
 * answers a chat route with the typed fallback reason.
 */
export async function routeTokenIn(
  upstream: UpstreamClient,
  sessionId: number,
  body: ChatCompletionRequestWire,
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
    send: (s, accept) => upstream.chatCompletions(chatBody, s, accept),
    committed,
  });
  const why = unsupported(body);
  if (why) return chat({ reason: 'unsupported-request', detail: why });
  if (lineages.length === 0) return chat({ reason: 'no-lineage', detail: 'the session has no open lineage yet' });
  const rendered = await tokenizeConversation(upstream, body, signal);
  if (!rendered) return chat({ reason: 'tokenize-failed', detail: 'the upstream’s /tokenize answered no token ids for the conversation' });
  const plan = planTokenIn(lineages, body.messages as unknown as FormatMessage[], rendered.tokens);
  if (plan.mode === 'chat') return chat(plan.fallback);
  continued = plan.lineage;
  const sent = Buffer.from(JSON.stringify(completionsBody(body, plan.promptIds, options.maxModelLen ?? rendered.maxModelLen)));
  return {
    mode: 'token_in',
    fallback: null,
    body: sent,
    send: async (s, accept) => adapt(await upstream.completions(sent, s, accept), body.stream, format),
    committed,
  };
}
