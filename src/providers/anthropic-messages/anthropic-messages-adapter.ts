// The Anthropic Messages protocol adapter (POST /v1/messages; Claude Code sends `?beta=true`).
import type { ProtocolAdapter } from '../protocol-adapter.js';
import { convertAnthropicRequest } from './convert-anthropic-request.js';
import { createAnthropicStreamEncoder } from './encode-anthropic-stream.js';
import { renderAnthropicError } from './render-anthropic-error.js';
import { renderAnthropicResponse } from './render-anthropic-response.js';

export const anthropicMessagesAdapter: ProtocolAdapter = {
  protocol: 'anthropic-messages',
  parseRequest: (body) => convertAnthropicRequest(body),
  renderResponse: renderAnthropicResponse,
  createStreamEncoder: createAnthropicStreamEncoder,
  renderError: renderAnthropicError,
};
