// Canonical stream events to OpenAI Responses SSE frames (`event: <type>\ndata: <json>\n\n`),
// with per-item state: one open reasoning or message item, or a group of function_call items.
import type { CanonicalRequest, GatewayErrorBody, StreamEvent } from '../canonical.js';
import type { StreamEncoder } from '../protocol-adapter.js';
import { buildOpenAIResponse, createResponseIds, mapOpenAIResponsesStatus } from './build-openai-response.js';
import type { ItemKind, ResponseHeader, ResponseState } from './build-openai-response.js';
import { mapOpenAIResponsesErrorCode } from './map-openai-responses-error-code.js';
import type {
  ResponsesFunctionCallItemWire,
  ResponsesItemStatusWire,
  ResponsesMessageItemWire,
  ResponsesOutputItemWire,
  ResponsesReasoningItemWire,
  ResponsesStreamEventWire,
} from './openai-responses-api-types.js';
import { recallResponsesEcho } from './openai-responses-echo.js';

type OpenBlock =
  | { kind: 'reasoning'; outputIndex: number }
  | { kind: 'message'; outputIndex: number }
  /** Parallel calls may interleave, so all of a turn's calls stay open until something else starts. */
  | { kind: 'tools'; outputIndexByCall: Map<number, number> };

/**
 * One encoder per response. The stream always ends with `response.completed`, also for a
 * length stop (`status: "incomplete"` inside): Codex treats any other ending, including
 * `response.incomplete`, as "stream closed before response.completed" and retries the turn five
 * times (codex-rs/codex-api/src/sse/responses.rs `process_sse`); Pi maps the status to its stop
 * reason. A tool-call delta for a call that was never started, or already closed, is dropped.
 */
export class OpenAIResponsesStreamEncoder implements StreamEncoder {
  private header: ResponseHeader | undefined;
  private itemId: (kind: ItemKind, outputIndex: number) => string = () => '';
  private readonly output: ResponsesOutputItemWire[] = [];
  private open: OpenBlock | undefined;
  private sequenceNumber = 0;
  private finished = false;

  constructor(private readonly request: CanonicalRequest) {}

  encode(event: StreamEvent): string {
    if (this.finished) return '';
    if (event.type === 'message-start') {
      return this.header === undefined ? this.start(event.id, event.created, event.model) : '';
    }
    let out = this.header === undefined ? this.startWithDefaults() : '';
    switch (event.type) {
      case 'reasoning-delta':
        if (event.text === '') return out;
        if (this.open?.kind !== 'reasoning') out += this.closeOpen() + this.openReasoning();
        return out + this.appendReasoning(event.text);
      case 'text-delta':
        if (event.text === '') return out;
        if (this.open?.kind !== 'message') out += this.closeOpen() + this.openMessage();
        return out + this.appendText(event.text);
      case 'tool-call-start':
        if (this.open?.kind !== 'tools') out += this.closeOpen();
        return out + this.openToolCall(event.index, event.id, event.name);
      case 'tool-call-delta':
        return out + this.appendArguments(event.index, event.argumentsDelta);
      case 'message-end': {
        const { status, incomplete_details } = mapOpenAIResponsesStatus(event.stopReason);
        out += this.closeOpen(status === 'incomplete' ? 'incomplete' : 'completed');
        this.finished = true;
        const response = this.response({ status, output: this.output, incompleteDetails: incomplete_details, usage: event.usage });
        return out + this.emit({ type: 'response.completed', response });
      }
      default: {
        const unreachable: never = event;
        throw new Error(`unknown stream event ${JSON.stringify(unreachable)}`);
      }
    }
  }

  /**
   * `response.failed` with `response.error {code, message}`, which Codex reads (it ignores the
   * `error` event type). Open items are not closed: Codex would keep a partial item as done.
   */
  error(error: GatewayErrorBody): string {
    if (this.finished) return '';
    const out = this.header === undefined ? this.startWithDefaults() : '';
    this.finished = true;
    for (const item of this.output) {
      if (item.type !== 'reasoning' && item.status === 'in_progress') item.status = 'incomplete';
    }
    const failure = { code: mapOpenAIResponsesErrorCode(error.kind), message: error.message };
    const response = this.response({ status: 'failed', output: this.output, error: failure });
    return out + this.emit({ type: 'response.failed', response });
  }

  private start(completionId: string, created: number, model: string): string {
    const ids = createResponseIds(completionId);
    this.itemId = ids.itemId;
    this.header = { id: ids.responseId, createdAt: created, model, echo: recallResponsesEcho(this.request) };
    const response = this.response({ status: 'in_progress', output: [] });
    return this.emit({ type: 'response.created', response }) + this.emit({ type: 'response.in_progress', response });
  }

  /** The gateway starts with message-start; if it did not, the stream is opened with defaults. */
  private startWithDefaults(): string {
    return this.start('', Math.floor(Date.now() / 1000), this.request.model);
  }

  private response(state: ResponseState) {
    const header = this.header ?? { id: '', createdAt: 0, model: this.request.model, echo: recallResponsesEcho(this.request) };
    return buildOpenAIResponse(header, state);
  }

  private emit(event: ResponsesStreamEventWire): string {
    const data = JSON.stringify({ ...event, sequence_number: this.sequenceNumber++ });
    return `event: ${event.type}\ndata: ${data}\n\n`;
  }

  private addItem(item: ResponsesOutputItemWire): string {
    this.output.push(item);
    return this.emit({ type: 'response.output_item.added', output_index: this.output.length - 1, item });
  }

  private openReasoning(): string {
    const outputIndex = this.output.length;
    const id = this.itemId('rs', outputIndex);
    const item: ResponsesReasoningItemWire = { id, type: 'reasoning', summary: [], content: [], encrypted_content: null };
    this.open = { kind: 'reasoning', outputIndex };
    // The SDK accumulator needs the part announced before `reasoning_text.delta` (content_index 0).
    const out = this.addItem(item);
    item.content.push({ type: 'reasoning_text', text: '' });
    const part = { type: 'reasoning_text' as const, text: '' };
    return out + this.emit({ type: 'response.content_part.added', item_id: id, output_index: outputIndex, content_index: 0, part });
  }

  private openMessage(): string {
    const outputIndex = this.output.length;
    const id = this.itemId('msg', outputIndex);
    const item: ResponsesMessageItemWire = { id, type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    this.open = { kind: 'message', outputIndex };
    const out = this.addItem(item);
    const part = { type: 'output_text' as const, text: '', annotations: [], logprobs: [] };
    item.content.push({ ...part });
    return out + this.emit({ type: 'response.content_part.added', item_id: id, output_index: outputIndex, content_index: 0, part });
  }

  private openToolCall(callIndex: number, callId: string, name: string): string {
    const outputIndex = this.output.length;
    if (this.open?.kind !== 'tools') this.open = { kind: 'tools', outputIndexByCall: new Map() };
    this.open.outputIndexByCall.set(callIndex, outputIndex);
    const item: ResponsesFunctionCallItemWire = {
      id: this.itemId('fc', outputIndex),
      type: 'function_call',
      status: 'in_progress',
      call_id: callId,
      name,
      arguments: '',
    };
    return this.addItem(item);
  }

  private appendReasoning(delta: string): string {
    const { item, outputIndex } = this.openItem('reasoning');
    const part = item.content[0];
    if (part !== undefined) part.text += delta;
    const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    return this.emit({ type: 'response.reasoning_text.delta', ...at, delta });
  }

  private appendText(delta: string): string {
    const { item, outputIndex } = this.openItem('message');
    const part = item.content[0];
    if (part !== undefined) part.text += delta;
    const at = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    return this.emit({ type: 'response.output_text.delta', ...at, delta, logprobs: [] });
  }

  private appendArguments(callIndex: number, delta: string): string {
    const outputIndex = this.open?.kind === 'tools' ? this.open.outputIndexByCall.get(callIndex) : undefined;
    const item = outputIndex === undefined ? undefined : this.output[outputIndex];
    if (outputIndex === undefined || item?.type !== 'function_call' || delta === '') return '';
    item.arguments += delta;
    return this.emit({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: outputIndex, delta });
  }

  private openItem<K extends 'reasoning' | 'message'>(kind: K) {
    const outputIndex = this.open?.kind === kind ? this.open.outputIndex : -1;
    const item = this.output[outputIndex] as Extract<ResponsesOutputItemWire, { type: K }>;
    return { item, outputIndex };
  }

  /** Done events for the open block; `lastStatus` goes to the final item of the turn. */
  private closeOpen(lastStatus: ResponsesItemStatusWire = 'completed'): string {
    const open = this.open;
    this.open = undefined;
    if (open === undefined) return '';
    const indexes = open.kind === 'tools' ? [...open.outputIndexByCall.values()].sort((a, b) => a - b) : [open.outputIndex];
    const lastIndex = this.output.length - 1;
    return indexes.map((index) => this.closeItem(index, index === lastIndex ? lastStatus : 'completed')).join('');
  }

  private closeItem(outputIndex: number, status: ResponsesItemStatusWire): string {
    const item = this.output[outputIndex];
    if (item === undefined) return '';
    let out = '';
    const at = { item_id: item.id, output_index: outputIndex };
    switch (item.type) {
      case 'reasoning': {
        const part = item.content[0] ?? { type: 'reasoning_text', text: '' };
        out += this.emit({ type: 'response.reasoning_text.done', ...at, content_index: 0, text: part.text });
        out += this.emit({ type: 'response.content_part.done', ...at, content_index: 0, part });
        break;
      }
      case 'message': {
        item.status = status;
        const part = item.content[0] ?? { type: 'output_text', text: '', annotations: [], logprobs: [] };
        out += this.emit({ type: 'response.output_text.done', ...at, content_index: 0, text: part.text, logprobs: [] });
        out += this.emit({ type: 'response.content_part.done', ...at, content_index: 0, part });
        break;
      }
      case 'function_call':
        item.status = status;
        out += this.emit({ type: 'response.function_call_arguments.done', ...at, name: item.name, arguments: item.arguments });
        break;
      default: {
        const unreachable: never = item;
        throw new Error(`unknown output item ${JSON.stringify(unreachable)}`);
      }
    }
    return out + this.emit({ type: 'response.output_item.done', output_index: outputIndex, item });
  }
}
