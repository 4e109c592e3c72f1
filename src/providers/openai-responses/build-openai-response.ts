// The Response object shared by the non-streaming answer and the stream's lifecycle events,
// and the deterministic ids of a response and its output items.
import type { StopReason, Usage } from '../canonical.js';
import type {
  ResponseObjectWire,
  ResponsesEchoWire,
  ResponsesErrorWire,
  ResponsesOutputItemWire,
  ResponsesUsageWire,
} from './openai-responses-api-types.js';

/** What every Response of one call shares. */
export interface ResponseHeader {
  id: string;
  createdAt: number;
  model: string;
  echo: ResponsesEchoWire;
}

export type ItemKind = 'rs' | 'msg' | 'fc';

/**
 * Ids derive from the upstream completion id (vLLM `chatcmpl-<random>`), so they are unique per
 * call and stable in tests: `resp_<id>`, items `<kind>_<id>_<output index>`.
 */
export function createResponseIds(completionId: string): { responseId: string; itemId(kind: ItemKind, outputIndex: number): string } {
  const base = completionId.replace(/^chatcmpl-/, '') || globalThis.crypto.randomUUID();
  return { responseId: `resp_${base}`, itemId: (kind, outputIndex) => `${kind}_${base}_${outputIndex}` };
}

/** How a finished turn ends in Responses terms. Unknown (`other`) stops count as completed. */
export function mapOpenAIResponsesStatus(stopReason: StopReason): Pick<ResponseObjectWire, 'status' | 'incomplete_details'> {
  switch (stopReason) {
    case 'stop':
    case 'tool-calls':
    case 'other':
      return { status: 'completed', incomplete_details: null };
    case 'length':
      return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
    case 'content-filter':
      return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
    default: {
      const unreachable: never = stopReason;
      return { status: 'completed', incomplete_details: unreachable };
    }
  }
}

function renderResponsesUsage(usage: Usage): ResponsesUsageWire {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export interface ResponseState {
  status: ResponseObjectWire['status'];
  output: ResponsesOutputItemWire[];
  incompleteDetails?: ResponseObjectWire['incomplete_details'];
  usage?: Usage;
  error?: ResponsesErrorWire;
}

export function buildOpenAIResponse(header: ResponseHeader, state: ResponseState): ResponseObjectWire {
  const response: ResponseObjectWire = {
    id: header.id,
    object: 'response',
    created_at: header.createdAt,
    status: state.status,
    error: state.error ?? null,
    incomplete_details: state.incompleteDetails ?? null,
    model: header.model,
    output: state.output,
    previous_response_id: null,
    text: { format: { type: 'text' } },
    truncation: 'disabled',
    ...header.echo,
  };
  if (state.usage !== undefined) response.usage = renderResponsesUsage(state.usage);
  return response;
}
