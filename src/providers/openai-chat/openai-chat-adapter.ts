// The OpenAI Chat Completions protocol adapter (`POST /v1/chat/completions`; Qwen Code, Pi).
import type { CanonicalRequest } from '../canonical.js';
import type { ProtocolAdapter } from '../protocol-adapter.js';
import { convertOpenAIChatRequest } from './convert-openai-chat-request.js';
import { OpenAIChatStreamEncoder } from './encode-openai-chat-stream.js';
import { renderOpenAIChatResponse } from './render-openai-chat-response.js';
import { renderOpenAIError } from './render-openai-error.js';

/**
 * `stream_options.include_usage` per parsed request. The canonical request has no field for it,
 * so it is keyed by the request object: the gateway must hand the same object that parseRequest
 * returned to createStreamEncoder (a copy falls back to "not asked", the OpenAI default).
 */
const includeUsageByRequest = new WeakMap<CanonicalRequest, boolean>();

export const openAIChatAdapter: ProtocolAdapter = {
  protocol: 'openai-chat',
  parseRequest(body) {
    const { request, includeUsage } = convertOpenAIChatRequest(body);
    includeUsageByRequest.set(request, includeUsage);
    return request;
  },
  renderResponse(response) {
    return renderOpenAIChatResponse(response);
  },
  createStreamEncoder(request) {
    return new OpenAIChatStreamEncoder(request, { includeUsage: includeUsageByRequest.get(request) ?? false });
  },
  renderError(error) {
    return renderOpenAIError(error);
  },
};
