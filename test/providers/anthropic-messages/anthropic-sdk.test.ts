// The official @anthropic-ai/sdk parses what the Anthropic adapter produces (served on 127.0.0.1).
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { CanonicalResponse, GatewayErrorBody, StreamEvent } from '../../../src/providers/canonical.js';
import { anthropicMessagesAdapter } from '../../../src/providers/anthropic-messages/anthropic-messages-adapter.js';
import { createThinkingSignature } from '../../../src/providers/anthropic-messages/create-thinking-signature.js';
import { renderAnswer } from '../../helpers/serve-adapter.js';
import { type CannedServer, serveCannedResponse } from '../../helpers/serve-canned-response.js';

const adapter = anthropicMessagesAdapter;
let server: CannedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const params = {
  model: 'mock-model',
  max_tokens: 1024,
  thinking: { type: 'enabled' as const, budget_tokens: 512 },
  messages: [{ role: 'user' as const, content: 'Read a and b.' }],
  tools: [{ name: 'Read', description: 'Reads a file.', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } }],
};

const streamEvents: StreamEvent[] = [
  { type: 'message-start', id: 'chatcmpl-42', model: 'qwen', created: 1, inputTokens: 30 },
  { type: 'reasoning-delta', text: 'Two files, ' },
  { type: 'reasoning-delta', text: 'two calls.' },
  { type: 'text-delta', text: 'Reading both.' },
  { type: 'tool-call-start', index: 0, id: 'call_a', name: 'Read' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"path": ' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '"a"}' },
  { type: 'tool-call-start', index: 1, id: 'call_b', name: 'Read' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '{"path": "b"}' },
  { type: 'message-end', stopReason: 'tool-calls', rawFinishReason: 'tool_calls', usage: { inputTokens: 30, outputTokens: 21 } },
];

const expectedContent = [
  { type: 'thinking', thinking: 'Two files, two calls.', signature: createThinkingSignature('Two files, two calls.') },
  { type: 'text', text: 'Reading both.' },
  { type: 'tool_use', id: 'call_a', name: 'Read', input: { path: 'a' } },
  { type: 'tool_use', id: 'call_b', name: 'Read', input: { path: 'b' } },
];

async function serveStream(events: StreamEvent[], midStreamError?: GatewayErrorBody): Promise<Anthropic> {
  server = await serveCannedResponse((request) =>
    renderAnswer(adapter, { kind: 'stream', events, failWith: midStreamError }, () => adapter.parseRequest(request.body, {})),
  );
  return new Anthropic({ baseURL: server.baseUrl, apiKey: 'polar-session-key', maxRetries: 0 });
}

async function serveError(error: GatewayErrorBody): Promise<Anthropic> {
  server = await serveCannedResponse((request) =>
    renderAnswer(adapter, { kind: 'error', error }, () => adapter.parseRequest(request.body, {})),
  );
  return new Anthropic({ baseURL: server.baseUrl, apiKey: 'polar-session-key', maxRetries: 0 });
}

describe('@anthropic-ai/sdk against the Anthropic adapter', () => {
  it('messages.stream().finalMessage() yields thinking, text, both tool calls, stop reason and usage', async () => {
    const client = await serveStream(streamEvents);
    const message = await client.messages.stream(params).finalMessage();
    expect(message.id).toBe('msg_chatcmpl-42');
    expect(message.model).toBe('mock-model');
    expect(message.content).toMatchObject(expectedContent);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 30, output_tokens: 21 });
  });

  it('messages.create({stream: true}) yields the raw events in Claude Code order', async () => {
    const client = await serveStream(streamEvents);
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type === 'content_block_delta' ? `delta:${event.delta.type}` : event.type);
    expect(types).toStrictEqual([
      'message_start',
      'content_block_start',
      'delta:thinking_delta',
      'delta:thinking_delta',
      'delta:signature_delta',
      'content_block_stop',
      'content_block_start',
      'delta:text_delta',
      'content_block_stop',
      'content_block_start',
      'delta:input_json_delta',
      'content_block_stop',
      'content_block_start',
      'delta:input_json_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('the SDK request parses, and the final message replays to the same canonical turn', async () => {
    const client = await serveStream(streamEvents);
    const message = await client.messages.stream(params).finalMessage();
    const sent = server?.requests[0];
    expect(sent?.url).toBe('/v1/messages');
    const replay = adapter.parseRequest(
      { ...params, messages: [...params.messages, { role: 'assistant', content: message.content }] },
      {},
    );
    expect(replay.messages.at(-1)).toStrictEqual({
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'Two files, two calls.', signature: createThinkingSignature('Two files, two calls.') },
        { type: 'text', text: 'Reading both.' },
        { type: 'tool-call', id: 'call_a', name: 'Read', arguments: '{"path":"a"}' },
        { type: 'tool-call', id: 'call_b', name: 'Read', arguments: '{"path":"b"}' },
      ],
    });
  });

  it('messages.create() parses a non-streaming response', async () => {
    const response: CanonicalResponse = {
      id: 'chatcmpl-9',
      model: 'qwen',
      content: [
        { type: 'reasoning', text: 'ok' },
        { type: 'text', text: 'Hello.' },
        { type: 'tool-call', id: 'call_x', name: 'Read', arguments: '{"path": "x"' },
      ],
      stopReason: 'tool-calls',
      rawFinishReason: 'tool_calls',
      usage: { inputTokens: 5, outputTokens: 6 },
      created: 1,
    };
    server = await serveCannedResponse((request) =>
      renderAnswer(adapter, { kind: 'json', response }, () => adapter.parseRequest(request.body, {})),
    );
    const client = new Anthropic({ baseURL: server.baseUrl, apiKey: 'k', maxRetries: 0 });
    const message = await client.messages.create(params);
    expect(message.content).toMatchObject([
      { type: 'thinking', thinking: 'ok', signature: createThinkingSignature('ok') },
      { type: 'text', text: 'Hello.' },
      { type: 'tool_use', id: 'call_x', name: 'Read', input: { _polar_raw_arguments: '{"path": "x"' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 5, output_tokens: 6 });
  });

  const errorCases: Array<{ error: GatewayErrorBody; errorClass: new (...args: never[]) => Error; type: string }> = [
    { error: { kind: 'invalid-request', status: 400, message: 'bad' }, errorClass: Anthropic.BadRequestError, type: 'invalid_request_error' },
    { error: { kind: 'authentication', status: 401, message: 'unknown key' }, errorClass: Anthropic.AuthenticationError, type: 'authentication_error' },
    { error: { kind: 'not-found', status: 404, message: 'no' }, errorClass: Anthropic.NotFoundError, type: 'not_found_error' },
    { error: { kind: 'rate-limit', status: 429, message: 'slow down' }, errorClass: Anthropic.RateLimitError, type: 'rate_limit_error' },
    { error: { kind: 'upstream-error', status: 502, message: 'vLLM 500' }, errorClass: Anthropic.InternalServerError, type: 'api_error' },
    { error: { kind: 'upstream-unavailable', status: 529, message: 'down' }, errorClass: Anthropic.InternalServerError, type: 'overloaded_error' },
  ];

  it.each(errorCases)('an error body with status $error.status becomes the SDK error class', async ({ error, errorClass, type }) => {
    const client = await serveError(error);
    const failure = await client.messages.create(params).catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(errorClass);
    expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBe(error.status);
    expect((failure as InstanceType<typeof Anthropic.APIError>).type).toBe(type);
    expect((failure as Error).message).toContain(error.message);
  });

  it('a context overflow reaches the SDK with the real API text', async () => {
    const client = await serveError({
      kind: 'context-overflow',
      status: 400,
      message: "This model's maximum context length is 4096 tokens. However, your request has 5000 input tokens.",
    });
    const failure = await client.messages.create(params).catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(Anthropic.BadRequestError);
    expect((failure as Error).message).toContain('prompt is too long: 5000 tokens > 4096 maximum');
  });

  it('a mid-stream error event makes the stream throw an APIError', async () => {
    const client = await serveStream(streamEvents.slice(0, 4), { kind: 'upstream-error', status: 502, message: 'upstream closed the stream early' });
    const failure = await client.messages
      .stream(params)
      .finalMessage()
      .catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    expect((failure as InstanceType<typeof Anthropic.APIError>).type).toBe('api_error');
    expect((failure as Error).message).toContain('upstream closed the stream early');
  });
});
