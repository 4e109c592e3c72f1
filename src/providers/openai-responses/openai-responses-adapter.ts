// The OpenAI Responses protocol adapter (`POST /v1/responses`; Codex, stateless with store:false).
import type { ProtocolAdapter } from '../protocol-adapter.js';
import { renderOpenAIError } from '../openai-chat/render-openai-error.js';
import { convertOpenAIResponsesRequest } from './convert-openai-responses-request.js';
import { OpenAIResponsesStreamEncoder } from './encode-openai-responses-stream.js';
import { rememberResponsesEcho } from './openai-responses-echo.js';
import { renderOpenAIResponsesResponse } from './render-openai-responses-response.js';

export const openAIResponsesAdapter: ProtocolAdapter = {
  protocol: 'openai-responses',
  parseRequest(body) {
    const { request, echo } = convertOpenAIResponsesRequest(body);
    rememberResponsesEcho(request, echo);
    return request;
  },
  renderResponse(response, request) {
    return renderOpenAIResponsesResponse(response, request);
  },
  createStreamEncoder(request) {
    return new OpenAIResponsesStreamEncoder(request);
  },
  // Responses errors have the same `{error:{message,type,param,code}}` body as Chat Completions.
  renderError(error) {
    return renderOpenAIError(error);
  },
};
