// Canonical stream events to OpenAI `chat.completion.chunk` SSE frames (`data: {...}\n\n`).
import type { CanonicalRequest, GatewayErrorBody, StreamEvent } from '../canonical.js';
import type { StreamEncoder } from '../protocol-adapter.js';
import { mapOpenAIChatStopReason } from './map-openai-chat-stop-reason.js';
import type { ChatCompletionChunkOutWire, ChatDeltaOutWire, ChatFinishReasonWire } from './openai-chat-api-types.js';
import { renderOpenAIChatUsage } from './render-openai-chat-response.js';
import { createOpenAIErrorBody } from './render-openai-error.js';

export interface OpenAIChatStreamOptions {
  /** Emit the `choices: []` usage chunk before `[DONE]` (the client set `stream_options.include_usage`). */
  includeUsage: boolean;
}

function frame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/**
 * One encoder per response. Frames: a role chunk first, then one chunk per delta, a finish_reason
 * chunk, the usage chunk when asked, `[DONE]`. After the end or an error it emits nothing more.
 */
export class OpenAIChatStreamEncoder implements StreamEncoder {
  private header: { id: string; created: number; model: string } | undefined;
  private finished = false;

  constructor(
    private readonly request: CanonicalRequest,
    private readonly options: OpenAIChatStreamOptions,
  ) {}

  encode(event: StreamEvent): string {
    if (this.finished) return '';
    let out = '';
    if (this.header === undefined) {
      // The gateway starts with message-start; if it did not, open the stream with defaults.
      const start =
        event.type === 'message-start'
          ? event
          : { id: `chatcmpl-${globalThis.crypto.randomUUID()}`, created: Math.floor(Date.now() / 1000), model: this.request.model };
      this.header = { id: start.id, created: start.created, model: start.model };
      out += this.chunk({ role: 'assistant', content: '' }, null);
      if (event.type === 'message-start') return out;
    }
    switch (event.type) {
      case 'message-start':
        return out;
      case 'reasoning-delta':
        return event.text === '' ? out : out + this.chunk({ reasoning_content: event.text, reasoning: event.text }, null);
      case 'text-delta':
        return event.text === '' ? out : out + this.chunk({ content: event.text }, null);
      case 'tool-call-start':
        return (
          out +
          this.chunk(
            { tool_calls: [{ index: event.index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }] },
            null,
          )
        );
      case 'tool-call-delta':
        return event.argumentsDelta === ''
          ? out
          : out + this.chunk({ tool_calls: [{ index: event.index, function: { arguments: event.argumentsDelta } }] }, null);
      case 'message-end': {
        this.finished = true;
        out += this.chunk({}, mapOpenAIChatStopReason(event.stopReason, event.rawFinishReason));
        if (this.options.includeUsage) {
          const usageChunk: ChatCompletionChunkOutWire = { ...this.base(), choices: [], usage: renderOpenAIChatUsage(event.usage) };
          out += frame(usageChunk);
        }
        return `${out}data: [DONE]\n\n`;
      }
      default: {
        const unreachable: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /** `data: {"error":{...}}` (the openai SDK throws APIError on it) and no `[DONE]`. */
  error(error: GatewayErrorBody): string {
    if (this.finished) return '';
    this.finished = true;
    return frame(createOpenAIErrorBody(error));
  }

  private base(): Omit<ChatCompletionChunkOutWire, 'choices'> {
    const header = this.header ?? { id: '', created: 0, model: this.request.model };
    return { id: header.id, object: 'chat.completion.chunk', created: header.created, model: header.model };
  }

  private chunk(delta: ChatDeltaOutWire, finishReason: ChatFinishReasonWire | null): string {
    const chunk: ChatCompletionChunkOutWire = {
      ...this.base(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    return frame(chunk);
  }
}
