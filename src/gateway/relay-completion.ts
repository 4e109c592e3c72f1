// Non-streaming call: wait for the upstream's chat.completion, commit the capture, answer the client.
import { checkTokenCapture } from '../capture/check-token-capture.js';
import { decodeChatCompletion } from '../upstream/decode-chat-completion.js';
import { splitPromptIds } from '../upstream/split-prompt-ids.js';
import { readBody, UpstreamConnectionError } from '../upstream/upstream-client.js';
import type { UpstreamResponse } from '../upstream/upstream-client.js';
import { answerError, type CallContext, commitCall, markFirstByte } from './call-context.js';
import { classifyEarlyClose, classifyUpstreamError } from './classify-upstream-error.js';
import { abortedByPolarError, engineAbortedError } from './engine-aborted-error.js';
import { sendJsonText } from './send-json.js';

/** Contract: always answers the client (unless it left) and commits exactly one record. */
export async function relayCompletion(context: CallContext, upstream: UpstreamResponse): Promise<void> {
  let raw: Buffer;
  try {
    raw = await readBody(upstream.body);
    // The whole answer is in: an abort polar sends from now on does not touch this call.
    context.answerComplete = true;
  } catch (error) {
    // Cut after polar asked the engine to abort: aborted, not an upstream failure.
    if (context.engineAbortSent === true && !context.res.destroyed) {
      await abortedByPolar(context, null, undefined);
      return;
    }
    // Headers arrived but the body did not: a stall past the idle timeout, or a dropped connection.
    if (upstream.timedOut()) {
      throw new UpstreamConnectionError('upstream stalled while sending its answer, past the gateway timeout', 'timeout', { cause: error });
    }
    if (context.res.destroyed) throw new UpstreamConnectionError('the client left while the upstream answered', 'aborted', { cause: error });
    if (context.replicaDown !== undefined) throw new UpstreamConnectionError(context.replicaDown, 'unavailable', { cause: error });
    const early = classifyEarlyClose((error as Error).message);
    await commitCall(context, { status: early.status, error: early.error.message, httpStatus: early.error.status });
    answerError(context, early.error);
    return;
  }
  if (upstream.status !== 200 && context.engineAbortSent === true) {
    await abortedByPolar(context, null, raw);
    return;
  }
  if (upstream.status !== 200) {
    const classified = classifyUpstreamError(upstream.status, raw);
    await commitCall(context, {
      status: classified.status,
      error: classified.error.message,
      httpStatus: classified.error.status,
      upstreamResponse: raw,
    });
    answerError(context, classified.error);
    return;
  }
  let decoded: ReturnType<typeof decodeChatCompletion>;
  try {
    const text = raw.toString('utf8');
    // A long prompt's ids are left as JSON text for the commit worker to parse, unless a token-in lineage
    // needs them here once the call is committed.
    const split = context.afterCommit === undefined ? splitPromptIds<unknown>(text, context.engine.promptIdsPlace) : undefined;
    const completion = context.engine.readChatCompletion(split === undefined ? JSON.parse(text) : split.value);
    if (typeof completion?.model === 'string') context.responseModel = completion.model;
    decoded = decodeChatCompletion(completion);
    if (split !== undefined) decoded.capture.promptTokenIdsJson = split.promptIds;
  } catch (error) {
    if (context.engineAbortSent === true) {
      await abortedByPolar(context, null, raw);
      return;
    }
    const message = `upstream answered 200 with a body that is not a chat.completion: ${(error as Error).message}`;
    await commitCall(context, { status: 'upstream_error', error: message, httpStatus: 502, upstreamResponse: raw });
    answerError(context, { kind: 'upstream-error', status: 502, message });
    return;
  }
  // polar sent an abort before the answer was whole: aborted, whatever finish reason it reports.
  if (context.engineAbortSent === true) {
    await abortedByPolar(context, decoded, raw);
    return;
  }
  const verdict = checkTokenCapture(decoded.capture);
  const aborted = engineAbortedError(verdict);
  if (aborted !== undefined) {
    await commitCall(context, { status: 'engine_aborted', error: aborted.message, httpStatus: aborted.status, capture: decoded.capture, response: decoded.response, upstreamResponse: raw });
    answerError(context, aborted);
    return;
  }
  if (verdict.status === 'no_token_ids') {
    const message = context.engine.noTokenIdsMessage;
    await commitCall(context, {
      status: verdict.status,
      error: message,
      httpStatus: 502,
      capture: decoded.capture,
      response: decoded.response,
      upstreamResponse: raw,
    });
    answerError(context, { kind: 'upstream-error', status: 502, message });
    return;
  }
  // token_mismatch still answers the client: the answer is valid, only the capture is untrusted.
  const committing = commitCall(context, {
    status: verdict.status,
    error: verdict.error,
    httpStatus: 200,
    capture: decoded.capture,
    response: decoded.response,
    upstreamResponse: raw,
  });
  // The answer is rendered while the commit worker commits, and sent only once the commit is done.
  let answer: string | undefined;
  try {
    answer = context.request === null ? undefined : JSON.stringify(context.adapter.renderResponse(decoded.response, context.request));
  } finally {
    await committing;
  }
  if (answer === undefined) return;
  markFirstByte(context);
  sendJsonText(context.res, 200, answer);
}

/** Commits a call polar's abort cut as engine_aborted (with what was decoded of it) and answers the client's 503. */
async function abortedByPolar(context: CallContext, decoded: ReturnType<typeof decodeChatCompletion> | null, raw: Buffer | undefined): Promise<void> {
  const error = abortedByPolarError(context, decoded?.capture.finishReason ?? null) as NonNullable<ReturnType<typeof abortedByPolarError>>;
  await commitCall(context, {
    status: 'engine_aborted',
    error: error.message,
    httpStatus: error.status,
    ...(decoded !== null ? { capture: decoded.capture, response: decoded.response } : {}),
    ...(raw !== undefined ? { upstreamResponse: raw } : {}),
  });
  answerError(context, error);
}
