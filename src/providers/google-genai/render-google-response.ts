// A complete canonical response as a Google GenerateContentResponse (non-streaming).
import type { AssistantPart, CanonicalRequest, CanonicalResponse, Usage } from '../canonical.js';
import { parseToolArguments } from '../tool-arguments.js';
import type { GoogleGenerateContentResponse, GooglePart, GoogleUsageMetadata } from './google-api-types.js';
import { mapGoogleFinishReason } from './map-google-finish-reason.js';

/**
 * `modelVersion` echoes the model named in the URL; `responseId` is the upstream completion id.
 * Empty text and reasoning parts carry nothing and are not rendered (as in the stream).
 */
export function renderGoogleResponse(response: CanonicalResponse, request: CanonicalRequest): GoogleGenerateContentResponse {
  return {
    candidates: [
      {
        content: { role: 'model', parts: response.content.flatMap(renderGooglePart) },
        finishReason: mapGoogleFinishReason(response.stopReason),
        index: 0,
      },
    ],
    usageMetadata: renderGoogleUsage(response.usage),
    modelVersion: request.model,
    responseId: response.id,
  };
}

function renderGooglePart(part: AssistantPart): GooglePart[] {
  switch (part.type) {
    case 'text':
      return part.text === '' ? [] : [{ text: part.text }];
    case 'reasoning':
      return part.text === '' ? [] : [{ text: part.text, thought: true }];
    case 'tool-call':
      // Arguments that are not a JSON object are wrapped, never repaired (see tool-arguments.ts).
      return [{ functionCall: { id: part.id, name: part.name, args: parseToolArguments(part.arguments) } }];
    default:
      return assertNever(part);
  }
}

export function renderGoogleUsage(usage: Usage): GoogleUsageMetadata {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
}

function assertNever(value: never): never {
  throw new Error(`unexpected assistant part ${JSON.stringify(value)}`);
}
