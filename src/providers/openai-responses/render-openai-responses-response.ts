// A finished canonical response as an OpenAI Response object. Output items follow production
// order: consecutive reasoning parts form one reasoning item, consecutive text parts one message
// item, and each tool call is its own function_call item.
import type { AssistantPart, CanonicalRequest, CanonicalResponse } from '../canonical.js';
import { buildOpenAIResponse, createResponseIds, mapOpenAIResponsesStatus } from './build-openai-response.js';
import type { ItemKind } from './build-openai-response.js';
import type { ResponseObjectWire, ResponsesItemStatusWire, ResponsesOutputItemWire } from './openai-responses-api-types.js';
import { recallResponsesEcho } from './openai-responses-echo.js';

type ItemId = (kind: ItemKind, outputIndex: number) => string;

function appendPart(output: ResponsesOutputItemWire[], part: AssistantPart, itemId: ItemId): void {
  const last = output[output.length - 1];
  switch (part.type) {
    case 'reasoning':
      if (last?.type === 'reasoning') last.content.push({ type: 'reasoning_text', text: part.text });
      else {
        output.push({
          id: itemId('rs', output.length),
          type: 'reasoning',
          summary: [],
          content: [{ type: 'reasoning_text', text: part.text }],
          encrypted_content: null,
        });
      }
      return;
    case 'text': {
      const text = { type: 'output_text' as const, text: part.text, annotations: [], logprobs: [] };
      if (last?.type === 'message') last.content.push(text);
      else output.push({ id: itemId('msg', output.length), type: 'message', role: 'assistant', status: 'completed', content: [text] });
      return;
    }
    case 'tool-call':
      output.push({
        id: itemId('fc', output.length),
        type: 'function_call',
        status: 'completed',
        call_id: part.id,
        name: part.name,
        arguments: part.arguments,
      });
      return;
    default: {
      const unreachable: never = part;
      throw new Error(`unknown assistant part ${JSON.stringify(unreachable)}`);
    }
  }
}

/** A cut-off turn (length, content filter) marks the item that was being written as incomplete. */
function markLastItem(output: ResponsesOutputItemWire[], status: ResponsesItemStatusWire): void {
  const last = output[output.length - 1];
  if (last !== undefined && last.type !== 'reasoning') last.status = status;
}

export function renderOpenAIResponsesResponse(response: CanonicalResponse, request: CanonicalRequest): ResponseObjectWire {
  const ids = createResponseIds(response.id);
  const output: ResponsesOutputItemWire[] = [];
  for (const part of response.content) appendPart(output, part, ids.itemId);
  const { status, incomplete_details } = mapOpenAIResponsesStatus(response.stopReason);
  if (status === 'incomplete') markLastItem(output, 'incomplete');
  const header = { id: ids.responseId, createdAt: response.created, model: response.model, echo: recallResponsesEcho(request) };
  return buildOpenAIResponse(header, { status, output, incompleteDetails: incomplete_details, usage: response.usage });
}
