import { describe, expect, it } from 'vitest';
import { extractApiKey } from '../../src/gateway/extract-api-key.js';
import { matchRoute } from '../../src/gateway/match-route.js';

describe('extractApiKey', () => {
  it.each([
    [{ authorization: 'Bearer k1' }, '/v1/chat/completions', 'k1'],
    [{ 'x-api-key': 'k2' }, '/v1/messages?beta=true', 'k2'],
    [{ 'x-goog-api-key': 'k3' }, '/v1beta/models/m:generateContent', 'k3'],
    [{}, '/v1beta/models/m:generateContent?key=k4', 'k4'],
    [{ authorization: 'Basic abc' }, '/v1/chat/completions', undefined],
    [{}, '/v1/chat/completions', undefined],
  ])('%j %s → %s', (headers, path, key) => {
    expect(extractApiKey(headers, new URL(path, 'http://x'))).toBe(key);
  });
});

describe('matchRoute', () => {
  it.each([
    ['POST', '/v1/chat/completions', { kind: 'model-call', protocol: 'openai-chat' }],
    ['POST', '/v1/responses', { kind: 'model-call', protocol: 'openai-responses' }],
    ['POST', '/v1/messages', { kind: 'model-call', protocol: 'anthropic-messages' }],
    ['POST', '/v1/messages/count_tokens', { kind: 'count-tokens' }],
    ['POST', '/v1beta/models/qwen:streamGenerateContent', { kind: 'model-call', protocol: 'google-genai', pathModel: 'qwen', pathStream: true }],
    ['POST', '/v1beta/models/qwen:generateContent', { kind: 'model-call', protocol: 'google-genai', pathModel: 'qwen', pathStream: false }],
    ['HEAD', '/', { kind: 'probe' }],
    ['GET', '/health', { kind: 'health' }],
    ['GET', '/v1/models', { kind: 'list-models', protocol: 'openai-chat' }],
    ['GET', '/v1/nope', { kind: 'not-found', protocol: 'openai-chat' }],
  ])('%s %s', (method, path, route) => {
    expect(matchRoute(method, path, {})).toEqual(route);
  });
});
