// The Google generateContent protocol adapter (`/v1beta/models/{model}:generateContent` and
// `:streamGenerateContent?alt=sse`; the model and streaming come from the URL path).
import type { ProtocolAdapter } from '../protocol-adapter.js';
import { convertGoogleRequest } from './convert-google-request.js';
import { createGoogleStreamEncoder } from './encode-google-stream.js';
import { renderGoogleError } from './render-google-error.js';
import { renderGoogleResponse } from './render-google-response.js';

export const googleGenAIAdapter: ProtocolAdapter = {
  protocol: 'google-genai',
  parseRequest: convertGoogleRequest,
  renderResponse: renderGoogleResponse,
  createStreamEncoder: createGoogleStreamEncoder,
  renderError: renderGoogleError,
};
