// The answer to `POST /v1/messages/count_tokens`.
import type { AnthropicCountTokensResponse } from './anthropic-api-types.js';

export function renderCountTokens(inputTokens: number): AnthropicCountTokensResponse {
  return { input_tokens: inputTokens };
}
