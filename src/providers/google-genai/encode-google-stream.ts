// Canonical stream events to Google `:streamGenerateContent?alt=sse` chunks.
import type { CanonicalRequest, GatewayErrorBody, StreamEvent } from '../canonical.js';
import type { StreamEncoder } from '../protocol-adapter.js';
import { parseToolArguments } from '../anthropic-messages/tool-arguments.js';
import type { GoogleCandidate, GoogleGenerateContentResponse, GooglePart } from './google-api-types.js';
import { mapGoogleFinishReason } from './map-google-finish-reason.js';
import { renderGoogleError } from './render-google-error.js';
import { renderGoogleUsage } from './render-google-response.js';

interface PendingToolCall {
  /** Canonical tool-call index. */
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/**
 * Every chunk is `data: <GenerateContentResponse JSON>\r\n\r\n` (Google's own framing; the genai
 * SDK also accepts `\n\n`). Reasoning and text deltas are sent as they come (`thought: true` parts
 * for reasoning). A functionCall must arrive complete, so tool calls are buffered until the next
 * reasoning/text event or the end, then sent together in one chunk (as Google sends parallel
 * calls). The last chunk carries finishReason and usageMetadata.
 *
 * Mid-stream errors are written as the bare error JSON `{"error": {...}}`, not as a `data:` chunk:
 * that is how Google reports them, and the genai SDK only raises an ApiError for a read that is
 * exactly such a JSON body (a `data:` chunk with an `error` field is yielded as an empty response).
 *
 * Contract: never throws; a malformed event sequence ends the stream with an INTERNAL error.
 */
export function createGoogleStreamEncoder(request: CanonicalRequest): StreamEncoder {
  return new GoogleStreamEncoder(request.model);
}

class GoogleStreamEncoder implements StreamEncoder {
  #state: 'before-start' | 'streaming' | 'ended' = 'before-start';
  #responseId = '';
  #pendingToolCalls: PendingToolCall[] = [];
  #sentToolIndexes = new Set<number>();

  constructor(private readonly model: string) {}

  encode(event: StreamEvent): string {
    if (this.#state === 'ended') return '';
    try {
      return this.#encode(event);
    } catch (error) {
      if (!(error instanceof StreamSequenceError)) throw error;
      return this.error({ kind: 'internal', status: 500, message: `polar could not encode the stream: ${error.message}` });
    }
  }

  error(error: GatewayErrorBody): string {
    this.#state = 'ended';
    return JSON.stringify(renderGoogleError(error).body);
  }

  #encode(event: StreamEvent): string {
    if (event.type === 'message-start') {
      if (this.#state !== 'before-start') throw new StreamSequenceError('a second message-start');
      this.#state = 'streaming';
      this.#responseId = event.id;
      return '';
    }
    if (this.#state === 'before-start') throw new StreamSequenceError(`"${event.type}" before message-start`);
    switch (event.type) {
      case 'reasoning-delta':
        return event.text === '' ? '' : this.#flushToolCalls() + this.#chunk({ parts: [{ text: event.text, thought: true }] });
      case 'text-delta':
        return event.text === '' ? '' : this.#flushToolCalls() + this.#chunk({ parts: [{ text: event.text }] });
      case 'tool-call-start':
        if (this.#sentToolIndexes.has(event.index) || this.#pendingToolCalls.some((call) => call.index === event.index)) {
          throw new StreamSequenceError(`tool-call-start for index ${event.index} came twice`);
        }
        this.#pendingToolCalls.push({ index: event.index, id: event.id, name: event.name, arguments: '' });
        return '';
      case 'tool-call-delta':
        this.#pendingToolCall(event.index).arguments += event.argumentsDelta;
        return '';
      case 'message-end': {
        this.#state = 'ended';
        const parts = this.#takeToolCallParts();
        return this.#chunk({
          ...(parts.length > 0 && { parts }),
          finishReason: mapGoogleFinishReason(event.stopReason),
          usage: event.usage,
        });
      }
      default:
        return assertNever(event);
    }
  }

  #pendingToolCall(index: number): PendingToolCall {
    const call = this.#pendingToolCalls.find((pending) => pending.index === index);
    if (call !== undefined) return call;
    throw new StreamSequenceError(
      this.#sentToolIndexes.has(index)
        ? `arguments for function call ${index} arrived after the call was sent`
        : `tool-call-delta for index ${index} without a tool-call-start`,
    );
  }

  #flushToolCalls(): string {
    const parts = this.#takeToolCallParts();
    return parts.length === 0 ? '' : this.#chunk({ parts });
  }

  #takeToolCallParts(): GooglePart[] {
    const parts = this.#pendingToolCalls.map((call): GooglePart => {
      this.#sentToolIndexes.add(call.index);
      return { functionCall: { id: call.id, name: call.name, args: parseToolArguments(call.arguments) } };
    });
    this.#pendingToolCalls = [];
    return parts;
  }

  #chunk(options: {
    parts?: GooglePart[];
    finishReason?: GoogleCandidate['finishReason'];
    usage?: Extract<StreamEvent, { type: 'message-end' }>['usage'];
  }): string {
    const candidate: GoogleCandidate = { index: 0 };
    if (options.parts !== undefined) candidate.content = { role: 'model', parts: options.parts };
    if (options.finishReason !== undefined) candidate.finishReason = options.finishReason;
    const chunk: GoogleGenerateContentResponse = {
      candidates: [candidate],
      modelVersion: this.model,
      responseId: this.#responseId,
    };
    if (options.usage !== undefined) chunk.usageMetadata = renderGoogleUsage(options.usage);
    return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
  }
}

/** An event sequence the encoder cannot render faithfully. */
class StreamSequenceError extends Error {
  override readonly name = 'StreamSequenceError';
}

function assertNever(value: never): never {
  throw new Error(`unexpected stream event ${JSON.stringify(value)}`);
}
