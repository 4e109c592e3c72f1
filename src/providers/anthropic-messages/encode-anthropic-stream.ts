// Canonical stream events to Anthropic Messages SSE frames (message_start ... message_stop).
import type { CanonicalRequest, GatewayErrorBody, StreamEvent } from '../canonical.js';
import type { StreamEncoder } from '../protocol-adapter.js';
import { guardStreamSequence, StreamSequenceError } from '../stream-sequence-error.js';
import { toolArgumentsJson } from '../tool-arguments.js';
import { ToolCallBuffer } from '../tool-call-buffer.js';
import type { AnthropicContentBlock, AnthropicContentDelta } from './anthropic-api-types.js';
import { createThinkingSignature } from './create-thinking-signature.js';
import { encodeAnthropicSse } from './encode-anthropic-sse.js';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.js';
import { renderAnthropicError } from './render-anthropic-error.js';
import { renderAnthropicUsage } from './render-anthropic-response.js';
import { toAnthropicMessageId } from './to-anthropic-message-id.js';

type OpenBlock = { kind: 'text'; index: number } | { kind: 'thinking'; index: number; text: string };

/**
 * Block rules: a new content block starts whenever the kind of output changes (reasoning, text,
 * tool call); every block gets its `content_block_stop` (Claude Code drops blocks without one); a
 * thinking block gets a `signature_delta` just before it stops. Tool calls are buffered until the
 * next reasoning/text event or the end of the message, then sent as one complete `tool_use` block
 * each (start, one `input_json_delta`, stop), so arguments that are not a JSON object can be
 * wrapped instead of breaking the client's JSON parser (see tool-arguments.ts).
 *
 * Contract: never throws. A malformed event sequence (an event before `message-start`, a repeated
 * `tool-call-start` index, a `tool-call-delta` for an index that was never started or whose block
 * was already sent) ends the stream with an `api_error` event naming the problem, so the client
 * fails loudly instead of receiving a silently altered turn; events after the end encode to ''.
 */
export function createAnthropicStreamEncoder(request: CanonicalRequest): StreamEncoder {
  return new AnthropicStreamEncoder(request.model);
}

class AnthropicStreamEncoder implements StreamEncoder {
  readonly reportsInputTokensAtStart = true;
  #state: 'before-start' | 'streaming' | 'ended' = 'before-start';
  #nextBlockIndex = 0;
  #open: OpenBlock | undefined;
  readonly #toolCalls = new ToolCallBuffer((index) => `arguments for tool call ${index} arrived after its tool_use block was sent`);

  constructor(private readonly model: string) {}

  encode(event: StreamEvent): string {
    if (this.#state === 'ended') return '';
    return guardStreamSequence(() => this.#encode(event), (error) => this.error(error));
  }

  #encode(event: StreamEvent): string {
    if (event.type === 'message-start') return this.#start(event);
    if (this.#state === 'before-start') throw new StreamSequenceError(`"${event.type}" before message-start`);
    switch (event.type) {
      case 'reasoning-delta':
        return this.#delta('thinking', event.text);
      case 'text-delta':
        return this.#delta('text', event.text);
      case 'tool-call-start':
        this.#toolCalls.start(event.index, event.id, event.name);
        return this.#closeOpenBlock();
      case 'tool-call-delta':
        this.#toolCalls.append(event.index, event.argumentsDelta);
        return '';
      case 'message-end':
        return this.#end(event);
      default:
        return assertNever(event);
    }
  }

  error(error: GatewayErrorBody): string {
    this.#state = 'ended';
    return encodeAnthropicSse(renderAnthropicError(error).body);
  }

  #start(event: Extract<StreamEvent, { type: 'message-start' }>): string {
    if (this.#state !== 'before-start') throw new StreamSequenceError('a second message-start');
    this.#state = 'streaming';
    return encodeAnthropicSse({
      type: 'message_start',
      message: {
        id: toAnthropicMessageId(event.id),
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: renderAnthropicUsage({ inputTokens: event.inputTokens ?? 0, outputTokens: 0 }),
      },
    });
  }

  #delta(kind: OpenBlock['kind'], text: string): string {
    if (text === '') return '';
    let frames = this.#flushToolCalls();
    if (this.#open?.kind !== kind) frames += this.#closeOpenBlock() + this.#openBlock(kind);
    const open = this.#open as OpenBlock;
    if (open.kind === 'thinking') {
      open.text += text;
      return frames + this.#blockDelta(open.index, { type: 'thinking_delta', thinking: text });
    }
    return frames + this.#blockDelta(open.index, { type: 'text_delta', text });
  }

  #end(event: Extract<StreamEvent, { type: 'message-end' }>): string {
    const hasToolCalls = this.#toolCalls.hasCalls;
    const frames = this.#closeOpenBlock() + this.#flushToolCalls();
    this.#state = 'ended';
    return (
      frames +
      encodeAnthropicSse({
        type: 'message_delta',
        delta: { stop_reason: mapAnthropicStopReason(event.stopReason, hasToolCalls), stop_sequence: null },
        usage: renderAnthropicUsage(event.usage),
      }) +
      encodeAnthropicSse({ type: 'message_stop' })
    );
  }

  #openBlock(kind: OpenBlock['kind']): string {
    const index = this.#nextBlockIndex++;
    const block: AnthropicContentBlock =
      kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
    this.#open = kind === 'text' ? { kind, index } : { kind, index, text: '' };
    return encodeAnthropicSse({ type: 'content_block_start', index, content_block: block });
  }

  #closeOpenBlock(): string {
    const open = this.#open;
    if (open === undefined) return '';
    this.#open = undefined;
    const signature =
      open.kind === 'thinking'
        ? this.#blockDelta(open.index, { type: 'signature_delta', signature: createThinkingSignature(open.text) })
        : '';
    return signature + encodeAnthropicSse({ type: 'content_block_stop', index: open.index });
  }

  #flushToolCalls(): string {
    let frames = '';
    for (const call of this.#toolCalls.take()) {
      const index = this.#nextBlockIndex++;
      frames +=
        encodeAnthropicSse({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
        }) +
        this.#blockDelta(index, { type: 'input_json_delta', partial_json: toolArgumentsJson(call.arguments) }) +
        encodeAnthropicSse({ type: 'content_block_stop', index });
    }
    return frames;
  }

  #blockDelta(index: number, delta: AnthropicContentDelta): string {
    return encodeAnthropicSse({ type: 'content_block_delta', index, delta });
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected stream event ${JSON.stringify(value)}`);
}
