// One model call end to end: parse the client's request, send the canonical request upstream as
// OpenAI chat with token ids + logprobs, and hand the answer to the streaming or JSON relay.
import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { SamplingPolicy } from '../config/sampling-policy.js';
import { describeError, PolarError } from '../errors.js';
import type { CanonicalRequest } from '../providers/canonical.js';
import type { RequestContext } from '../providers/protocol-adapter.js';
import { parseClientJson } from '../providers/parse-client-json.js';
import { RequestError } from '../providers/request-error.js';
import { buildUpstreamRequest, requestedSampling, sentSampling } from '../upstream/build-upstream-request.js';
import { completionToSse } from '../upstream/completion-to-chunks.js';
import { readBody, UpstreamConnectionError, type UpstreamResponse } from '../upstream/upstream-client.js';
import type { EngineAdapter } from '../upstream/engines/engine.js';
import { validateConversation } from '../providers/validate-conversation.js';
import { answerError, type CallContext, commitCall } from './call-context.js';
import { abortedByPolarError } from './engine-aborted-error.js';
import type { GenerationGate } from './generation-control.js';
import { relayCompletion } from './relay-completion.js';
import { relayStream } from './relay-stream.js';
import { routeTokenIn, type TokenInOptions } from './token-in/route-token-in.js';

export interface ModelCallOptions {
  /** Resolves the model name to send upstream. */
  resolveUpstreamModel(signal: AbortSignal): Promise<string>;
  maxTokensCap?: number;
  /** The run's sampling policy (default: the client's values). */
  sampling?: SamplingPolicy;
  /** Field name for replayed thinking. */
  reasoningField?: 'reasoning' | 'reasoning_content';
  /** Capture streaming client calls non-streaming upstream, then relay them as a stream. */
  nonStreamingUpstream?: boolean;
  /** Token-in mode: calls that continue a lineage go upstream as token ids (vLLM `/v1/completions`, SGLang `/generate`). */
  tokenIn?: TokenInOptions;
  /** Pause/resume around weight syncs: every upstream call passes it (and records its policy version). */
  generation?: GenerationGate;
  /** Aborted (reason: why) when the call's upstream replica is marked down: the call ends upstream_unavailable. */
  replicaSignal?: AbortSignal;
}

/** Contract: never throws; every outcome is answered in the client's shape and recorded once. */
export async function handleModelCall(
  context: CallContext,
  routeContext: RequestContext,
  options: ModelCallOptions,
): Promise<void> {
  const parsed = await parseClientRequest(context, routeContext);
  if (parsed === undefined) return;
  context.request = parsed;

  const abort = new AbortController();
  const onClientClose = (): void => {
    if (!context.res.writableFinished) abort.abort();
  };
  context.res.on('close', onClientClose);
  let entered = false;
  const replicaSignal = options.replicaSignal?.aborted === false ? options.replicaSignal : undefined;
  const onReplicaDown = (): void => {
    context.replicaDown = String(replicaSignal?.reason ?? 'the upstream replica was marked down');
    abort.abort();
  };
  replicaSignal?.addEventListener('abort', onReplicaDown, { once: true });
  try {
    context.requestedSampling = requestedSampling(parsed);
    if (options.generation) {
      // Held here while generation is paused; nothing of this call has reached the upstream yet.
      context.policyVersion = await options.generation.enter(context, abort.signal);
      entered = true;
    }
    // Resolved after the hold: a LoRA adapter loaded in place at the resume is the model calls name from then on.
    context.upstreamModel = await options.resolveUpstreamModel(abort.signal);
    const buildOptions = { model: context.upstreamModel, maxTokensCap: options.maxTokensCap, sampling: options.sampling, reasoningField: options.reasoningField };
    const body = buildUpstreamRequest(parsed, buildOptions);
    context.sentSampling = sentSampling(parsed, buildOptions);
    // An engine without streamed chat ids (SGLang) is called non-streaming on chat; the client still gets a stream.
    // Its token-in route streams (SGLang /generate): only --non-streaming-upstream captures those whole.
    const streamIds = parsed.stream && options.nonStreamingUpstream !== true;
    const chatStreams = streamIds && context.engine.streamsChatTokenIds;
    if (parsed.stream && !chatStreams) {
      body.stream = false;
      delete body.stream_options;
    }
    context.upstreamRequest = Buffer.from(JSON.stringify(body));
    context.mode = 'chat';
    // A streamed answer shows how many tokens were sampled at any moment (a keep pause's version boundary). Set
    // while the call is routed too: a version change before anything was sent bounds it at token 0.
    if (options.tokenIn ? streamIds : chatStreams) context.streamedTokens = 0;
    const route = options.tokenIn ? await routeTokenIn(context.upstream, context.engine, context.session.id, body, streamIds, options.tokenIn, abort.signal) : undefined;
    if (route) Object.assign(context, { mode: route.mode, tokenInFallback: route.fallback, upstreamRequest: route.body, afterCommit: route.committed });
    const upstreamStreams = route?.streams ?? chatStreams;
    if (!upstreamStreams) delete context.streamedTokens;
    if (route !== undefined && route.heldBack > 0) context.heldBack = route.heldBack;
    const accept = upstreamStreams ? 'text/event-stream' : 'application/json';
    const upstream = route ? await route.send(abort.signal, accept) : await context.upstream.chatCompletions(context.upstreamRequest, abort.signal, accept);
    context.res.off('close', onClientClose);
    if (parsed.stream && upstream.status === 200) {
      const relayed = upstreamStreams ? upstream : await replayAsStream(upstream, context.engine);
      // A non-streamed answer replayed as a stream is whole already: an abort sent from now on does not touch it.
      if (!upstreamStreams) context.answerComplete = true;
      await relayStream(context, relayed, abort);
    } else {
      await relayCompletion(context, upstream);
    }
  } catch (error) {
    context.res.off('close', onClientClose);
    await recordFailure(context, error, abort.signal.aborted);
  } finally {
    if (entered) options.generation?.leave(context);
    replicaSignal?.removeEventListener('abort', onReplicaDown);
  }
}

async function parseClientRequest(context: CallContext, routeContext: RequestContext): Promise<CanonicalRequest | undefined> {
  try {
    const request = context.adapter.parseRequest(parseClientJson(context.rawBody), routeContext);
    validateConversation(request);
    return request;
  } catch (error) {
    if (error instanceof RequestError) {
      await rejectRequest(context, error.field && !error.message.startsWith(error.field) ? `${error.field}: ${error.message}` : error.message);
      return undefined;
    }
    const message = `polar failed to translate the request (a bug): ${(error as Error).message}`;
    await safeCommit(context, 'internal_error', message, 500);
    answerError(context, { kind: 'internal', status: 500, message });
    return undefined;
  }
}

async function rejectRequest(context: CallContext, message: string): Promise<void> {
  try {
    await commitCall(context, { status: 'invalid_request', error: message, httpStatus: 400 });
  } catch {
    // The store failed; the client still learns what is wrong with its request.
  }
  answerError(context, { kind: 'invalid-request', status: 400, message });
}

/** Reads a non-streaming answer and hands it on as the SSE stream vLLM would have sent. */
async function replayAsStream(upstream: UpstreamResponse, engine: EngineAdapter): Promise<UpstreamResponse> {
  const raw = await readBody(upstream.body).catch((error: unknown) => {
    throw new UpstreamConnectionError(`upstream closed its answer early: ${(error as Error).message}`, upstream.timedOut() ? 'timeout' : 'unavailable', { cause: error });
  });
  let sse: Buffer;
  try {
    sse = completionToSse(engine.readChatCompletion(JSON.parse(raw.toString('utf8'))));
  } catch {
    sse = Buffer.from(`data: ${raw.toString('utf8').replace(/\n/g, ' ')}\n\n`);
  }
  return { status: 200, body: Readable.from([sse]) as unknown as IncomingMessage, timedOut: () => false };
}

async function recordFailure(context: CallContext, error: unknown, clientGone: boolean): Promise<void> {
  if (context.replicaDown !== undefined && !context.res.destroyed) {
    const message = `${context.replicaDown}. The call was cut; polar sends this session's next call to a healthy replica.`;
    await safeCommit(context, 'upstream_unavailable', message, 503);
    answerError(context, { kind: 'upstream-unavailable', status: 503, message });
    return;
  }
  if (error instanceof PolarError) {
    // e.g. the upstream serves several models and none was named: the message says which.
    const message = describeError(error);
    await safeCommit(context, 'upstream_error', message, 502);
    answerError(context, { kind: 'upstream-error', status: 502, message });
    return;
  }
  const byPolar = clientGone ? undefined : abortedByPolarError(context, null);
  if (byPolar !== undefined && !context.res.destroyed) {
    // The engine was told to abort while this call was under way: whatever failed, the call is aborted.
    await safeCommit(context, 'engine_aborted', byPolar.message, byPolar.status);
    answerError(context, byPolar);
    return;
  }
  if (clientGone || (error instanceof UpstreamConnectionError && error.kind === 'aborted')) {
    await safeCommit(context, 'client_aborted', 'the client closed the connection before the upstream answered; the upstream request was cancelled', 499);
    return;
  }
  if (error instanceof UpstreamConnectionError) {
    const timeout = error.kind === 'timeout';
    const message = timeout
      ? `${error.message}. The model server is too slow or stuck; raise --upstream-timeout or check the server.`
      : `${error.message}. Start the model server (e.g. vLLM >= 0.10.2, or polar sim) or fix --upstream.`;
    await safeCommit(context, timeout ? 'upstream_timeout' : 'upstream_unavailable', message, timeout ? 504 : 503);
    answerError(context, { kind: timeout ? 'upstream-timeout' : 'upstream-unavailable', status: timeout ? 504 : 503, message });
    return;
  }
  const message = `polar failed while relaying the call (a bug): ${(error as Error).message ?? String(error)}`;
  await safeCommit(context, 'internal_error', message, 500);
  answerError(context, { kind: 'internal', status: 500, message });
}

async function safeCommit(
  context: CallContext,
  status: 'client_aborted' | 'upstream_timeout' | 'upstream_unavailable' | 'upstream_error' | 'internal_error' | 'engine_aborted',
  message: string,
  httpStatus: number,
): Promise<void> {
  try {
    await commitCall(context, { status, error: message, httpStatus });
  } catch {
    // The store itself failed; the client still gets its error answer below.
  }
}
