// Canonical stream events to Google `:streamGenerateContent?alt=sse` chunks.
import type { CanonicalRequest, GatewayErrorBody, StreamEvent } from '../canonical.js';
import type { StreamEncoder } from '../protocol-adapter.js';
import { guardStreamSequence, StreamSequenceError } from '../stream-sequence-error.js';
import { parseToolArguments } from '../tool-arguments.js';
import { ToolCallBuffer } from '../tool-call-buffer.js';
import type { GoogleCandidate, GoogleGenerateContentResponse, GooglePart } from './google-api-types.js';
import { mapGoogleFinishReason } from './map-google-finish-reason.js';
import { renderGoogleError } from './render-google-error.js';
import { renderGoogleUsage } from './render-google-response.js';

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
  readonly #toolCalls = new ToolCallBuffer((index) => `arguments for function call ${index} arrived after the call was sent`);

  constructor(private readonly model: string) {}

  encode(event: StreamEvent): string {
    if (this.#state === 'ended') return '';
    return guardStreamSequence(() => this.#encode(event), (error) => this.error(error));
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
        this.#toolCalls.start(event.index, event.id, event.name);
        return '';
      case 'tool-call-delta':
        this.#toolCalls.append(event.index, event.argumentsDelta);
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

  #flushToolCalls(): string {
    const parts = this.#takeToolCallParts();
    return parts.length === 0 ? '' : this.#chunk({ parts });
  }

  #takeToolCallParts(): GooglePart[] {
    return this.#toolCalls
      .take()
      .map((call): GooglePart => ({ functionCall: { id: call.id, name: call.name, args: parseToolArguments(call.arguments) } }));
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

function assertNever(value: never): never {
  throw new Error(`unexpected stream event ${JSON.stringify(value)}`);
}
