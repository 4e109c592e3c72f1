// Streaming call: relay upstream chunks to the client as they arrive (real streaming, with
// back-pressure), assemble the token capture from the same chunks, commit it, then send the
// protocol's terminal frames.
import { checkTokenCapture } from '../capture/check-token-capture.js';
import type { GatewayErrorBody } from '../providers/canonical.js';
import type { StreamEncoder } from '../providers/protocol-adapter.js';
import { ChatStreamDecoder } from '../upstream/chat-stream-decoder.js';
import { SseDataParser } from '../upstream/sse-line-splitter.js';
import { splitPromptIds } from '../upstream/split-prompt-ids.js';
import type { UpstreamResponse } from '../upstream/upstream-client.js';
import type { ChatCompletionChunkWire } from '../upstream/vllm-api-types.js';
import { answerError, type CallContext, type CallOutcome, commitCall, markFirstByte } from './call-context.js';
import { abortedByPolarError, engineAbortedError } from './engine-aborted-error.js';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // No `connection` header: Node sets it from the request, so a client's `Connection: close` is honoured.
  'x-accel-buffering': 'no',
};

/**
 * Contract: commits exactly one record for the call, whatever happens (client abort, upstream
 * error mid-stream, missing token ids), and never throws.
 */
export function relayStream(context: CallContext, upstream: UpstreamResponse, abort: AbortController): Promise<void> {
  const request = context.request;
  if (request === null) throw new Error('relayStream needs a parsed request');
  const { res } = context;
  const body = upstream.body;
  const parser = new SseDataParser();
  const decoder = new ChatStreamDecoder();
  const encoder: StreamEncoder = context.adapter.createStreamEncoder(request);
  const raw: Buffer[] = [];
  let settled = false;
  /** A token-in lineage is extended with the prompt ids once the call is committed. */
  const idsNeededHere = context.afterCommit !== undefined;

  return new Promise<void>((resolve) => {
    // The terminal frame waits for the commit (off the event loop); other sessions' bytes do not.
    const settle = (outcome: CallOutcome, after: () => void): void => {
      if (settled) return;
      settled = true;
      body.removeAllListeners('data');
      commitCall(context, { upstreamResponse: Buffer.concat(raw), capture: decoder.capture(), engineVersions: decoder.engineVersions, ...outcome }).then(
        () => {
          after();
          resolve();
        },
        (error: unknown) => {
          // The capture could not be committed: the client must not believe the call succeeded.
          failClient({ kind: 'internal', status: 500, message: `polar could not store the call: ${(error as Error).message}` });
          resolve();
        },
      );
    };

    const failClient = (error: GatewayErrorBody): void => {
      if (res.destroyed) return;
      if (res.headersSent || pending !== '') {
        flush();
        res.end(encoder.error(error));
      } else {
        answerError(context, error);
      }
    };

    // Frames produced by one upstream read are written together: one syscall per upstream chunk,
    // not one per event, and nothing waits longer than the upstream itself.
    let pending = '';
    const write = (text: string): void => {
      pending += text;
    };
    const flush = (): void => {
      if (pending === '' || res.destroyed) return;
      if (!res.headersSent) res.writeHead(200, SSE_HEADERS);
      markFirstByte(context);
      const text = pending;
      pending = '';
      if (!res.write(text)) {
        body.pause();
        res.once('drain', () => body.resume());
      }
    };

    const failStream = (status: CallOutcome['status'], error: GatewayErrorBody): void => {
      // Cancel the generation; an answer already received whole has nothing left to cancel (and Node reports
      // aborting a request whose response has ended as an uncaught error).
      if (!body.complete) abort.abort();
      // A stream cut after polar asked the engine to abort is aborted, whatever else went wrong with it.
      const aborted = status === 'engine_aborted' ? undefined : abortedByPolarError(context, decoder.capture().finishReason);
      if (aborted !== undefined) {
        failStream('engine_aborted', aborted);
        return;
      }
      settle({ status, error: error.message, httpStatus: res.headersSent ? 200 : error.status, response: decoder.response() }, () =>
        failClient(error),
      );
    };

    const onData = (data: string): void => {
      if (settled) return;
      if (data === '[DONE]') return;
      let chunk: ChatCompletionChunkWire & { error?: { message?: string } };
      // The first chunk's prompt ids are split off: its events do not wait for them (see body.on('data')).
      const split = decoder.hasStarted || encoder.reportsInputTokensAtStart === true ? undefined : splitPromptIds<ChatCompletionChunkWire>(data);
      try {
        chunk = split === undefined ? (JSON.parse(data) as typeof chunk) : split.value;
      } catch {
        failStream('upstream_error', { kind: 'upstream-error', status: 502, message: `upstream sent a malformed stream chunk: ${data.slice(0, 200)}` });
        return;
      }
      if (chunk.error) {
        failStream('upstream_error', { kind: 'upstream-error', status: 502, message: `upstream error mid-stream: ${chunk.error.message ?? JSON.stringify(chunk.error)}` });
        return;
      }
      if (typeof chunk.model === 'string') context.responseModel ??= chunk.model;
      const events = decoder.push(chunk, split?.promptIds);
      if (context.streamedTokens !== undefined) context.streamedTokens = decoder.sampledCount;
      // The finish is in: an abort polar sends from now on does not touch this call.
      if (decoder.finished) context.answerComplete = true;
      if (!res.headersSent && !decoder.hasPromptTokenIds) {
        // Refuse before streaming anything: a call without token ids is not training data.
        failStream('no_token_ids', { kind: 'upstream-error', status: 502, message: context.engine.noTokenIdsMessage });
        return;
      }
      for (const event of events) write(encoder.encode(event));
    };

    const onEnd = (): void => {
      if (settled) return;
      for (const data of parser.end()) onData(data);
      if (settled) return;
      if (idsNeededHere) resolvePromptIds();
      if (settled) return;
      // polar sent an abort before the finish arrived: aborted, whatever the stream reports (vLLM: tool_calls after
      // streamed tool pieces, no finish at all before the first token).
      const byPolar = abortedByPolarError(context, decoder.capture().finishReason);
      if (byPolar !== undefined) {
        failStream('engine_aborted', byPolar);
        return;
      }
      if (!decoder.finished) {
        failStream('upstream_error', { kind: 'upstream-error', status: 502, message: 'upstream stream ended before a finish_reason' });
        return;
      }
      const verdict = checkTokenCapture(decoder.capture());
      const aborted = engineAbortedError(verdict);
      if (aborted !== undefined) {
        // The stream ends in the protocol's error, not in a finished turn.
        failStream('engine_aborted', aborted);
        return;
      }
      flush();
      settle({ status: verdict.status, error: verdict.error, httpStatus: 200, response: decoder.response() }, () => {
        write(encoder.encode(decoder.endEvent()));
        flush();
        res.end();
      });
    };

    const resolvePromptIds = (): void => {
      if (settled) return;
      try {
        decoder.resolvePromptIds();
      } catch (error) {
        failStream('upstream_error', { kind: 'upstream-error', status: 502, message: `upstream sent malformed prompt_token_ids in its first stream chunk: ${(error as Error).message}` });
      }
    };

    body.on('data', (chunk: Buffer) => {
      context.lastUpstreamByteAt = performance.now();
      if (context.recordUpstreamResponse) raw.push(chunk);
      for (const data of parser.push(chunk)) onData(data);
      if (!settled) flush();
      // Split-off prompt ids are parsed by the commit worker, unless a token-in lineage needs them here: then
      // after the write above reaches the socket (Node corks a response's first writes until the next tick).
      if (!settled && idsNeededHere && decoder.hasUnresolvedPromptIds) process.nextTick(resolvePromptIds);
    });
    body.on('end', onEnd);
    // The upstream client knows whether its idle timeout cut the stream; anything else is an upstream failure.
    const failUpstream = (detail: string): void => {
      if (context.replicaDown !== undefined) {
        const message = `${context.replicaDown}. The call was cut; polar sends this session's next call to a healthy replica.`;
        failStream('upstream_unavailable', { kind: 'upstream-unavailable', status: 503, message });
      } else if (upstream.timedOut()) {
        failStream('upstream_timeout', { kind: 'upstream-timeout', status: 504, message: 'upstream stalled mid-stream past the gateway timeout (raise --upstream-timeout, or check the model server)' });
      } else {
        // The connection died mid-answer (a crashed, killed or restarted server): infrastructure, like a
        // refused one, so the session ends infra_error and is retried (rollout/classify-session-failure.ts).
        failStream('upstream_unavailable', { kind: 'upstream-error', status: 502, message: detail });
      }
    };
    body.on('error', (error: Error) => failUpstream(`upstream stream failed: ${error.message}`));
    body.on('close', () => {
      if (!settled && !body.readableEnded) failUpstream('upstream closed the stream early');
    });
    res.on('close', () => {
      if (settled || res.writableFinished) return;
      abort.abort();
      body.destroy();
      settle(
        { status: 'client_aborted', error: 'the client closed the connection before the answer was complete; the upstream request was cancelled', httpStatus: 499, response: decoder.response() },
        () => undefined,
      );
    });
  });
}
