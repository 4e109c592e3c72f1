// The official @google/genai SDK parses what the Google adapter produces (served on 127.0.0.1).
import { ApiError, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import type { CanonicalRequest, CanonicalResponse, GatewayErrorBody, StreamEvent } from '../../../src/providers/canonical.js';
import type { RequestContext } from '../../../src/providers/protocol-adapter.js';
import { googleGenAIAdapter } from '../../../src/providers/google-genai/google-genai-adapter.js';
import { renderAnswer } from '../../helpers/serve-adapter.js';
import { type CannedServer, type RecordedRequest, serveCannedResponse } from '../../helpers/serve-canned-response.js';

const adapter = googleGenAIAdapter;
let server: CannedServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const params = {
  model: 'mock-model',
  contents: [{ role: 'user', parts: [{ text: 'Read a and b.' }] }],
  config: {
    systemInstruction: 'You are a CLI agent.',
    thinkingConfig: { includeThoughts: true },
    tools: [
      {
        functionDeclarations: [
          { name: 'read_file', description: 'Reads a file.', parametersJsonSchema: { type: 'object', properties: { file_path: { type: 'string' } } } },
        ],
      },
    ],
  },
};

const streamEvents: StreamEvent[] = [
  { type: 'message-start', id: 'chatcmpl-77', model: 'qwen', created: 1, inputTokens: 40 },
  { type: 'reasoning-delta', text: 'Two reads.' },
  { type: 'text-delta', text: 'Reading ' },
  { type: 'text-delta', text: 'both.' },
  { type: 'tool-call-start', index: 0, id: 'call_a', name: 'read_file' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"file_path": "a"}' },
  { type: 'tool-call-start', index: 1, id: 'call_b', name: 'read_file' },
  { type: 'tool-call-delta', index: 1, argumentsDelta: '{"file_path": "b"}' },
  { type: 'message-end', stopReason: 'tool-calls', rawFinishReason: 'tool_calls', usage: { inputTokens: 40, outputTokens: 12 } },
];

/** What the gateway's route reads from `/v1beta/models/{model}:{method}`. */
function routeContext(request: RecordedRequest): RequestContext {
  const match = /\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent)/.exec(request.url);
  expect(match).not.toBeNull();
  return { pathModel: decodeURIComponent(match?.[1] ?? ''), pathStream: match?.[2] === 'streamGenerateContent' };
}

function parseRouted(request: RecordedRequest): CanonicalRequest {
  return adapter.parseRequest(request.body, routeContext(request));
}

function client(): GoogleGenAI {
  return new GoogleGenAI({ apiKey: 'polar-session-key', httpOptions: { baseUrl: server?.baseUrl ?? '' } });
}

async function serveStream(events: StreamEvent[], midStreamError?: GatewayErrorBody): Promise<GoogleGenAI> {
  server = await serveCannedResponse((request) =>
    renderAnswer(adapter, { kind: 'stream', events, failWith: midStreamError }, () => parseRouted(request)),
  );
  return client();
}

async function collect(stream: AsyncGenerator<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('@google/genai against the Google adapter', () => {
  it('generateContentStream yields thoughts, text, complete function calls, finish reason and usage', async () => {
    const ai = await serveStream(streamEvents);
    const chunks = await collect(await ai.models.generateContentStream(params));
    const parts = chunks.flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? []);
    expect(parts.filter((part) => part.thought === true).map((part) => part.text)).toStrictEqual(['Two reads.']);
    expect(parts.filter((part) => part.text !== undefined && part.thought !== true).map((part) => part.text).join('')).toBe('Reading both.');
    expect(chunks.flatMap((chunk) => chunk.functionCalls ?? [])).toStrictEqual([
      { id: 'call_a', name: 'read_file', args: { file_path: 'a' } },
      { id: 'call_b', name: 'read_file', args: { file_path: 'b' } },
    ]);
    const last = chunks.at(-1);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata).toStrictEqual({ promptTokenCount: 40, candidatesTokenCount: 12, totalTokenCount: 52 });
    expect(last?.responseId).toBe('chatcmpl-77');
    expect(last?.modelVersion).toBe('mock-model');
  });

  it('the SDK request parses: model and streaming from the path, system, tools, thinking', async () => {
    const ai = await serveStream(streamEvents);
    await collect(await ai.models.generateContentStream(params));
    const sent = server?.requests[0] as RecordedRequest;
    expect(sent.url).toBe('/v1beta/models/mock-model:streamGenerateContent?alt=sse');
    expect(adapter.parseRequest(sent.body, routeContext(sent))).toStrictEqual({
      protocol: 'google-genai',
      model: 'mock-model',
      stream: true,
      reasoning: true,
      sampling: {},
      messages: [
        { role: 'system', content: 'You are a CLI agent.' },
        { role: 'user', content: [{ type: 'text', text: 'Read a and b.' }] },
      ],
      tools: [{ name: 'read_file', description: 'Reads a file.', parameters: { type: 'object', properties: { file_path: { type: 'string' } } } }],
    });
  });

  it('generateContent parses a non-streaming response', async () => {
    const response: CanonicalResponse = {
      id: 'chatcmpl-8',
      model: 'qwen',
      content: [
        { type: 'reasoning', text: 'short' },
        { type: 'text', text: 'Hello.' },
      ],
      stopReason: 'length',
      rawFinishReason: 'length',
      usage: { inputTokens: 3, outputTokens: 2 },
      created: 1,
    };
    server = await serveCannedResponse((request) => renderAnswer(adapter, { kind: 'json', response }, () => parseRouted(request)));
    const answer = await client().models.generateContent(params);
    expect(answer.text).toBe('Hello.');
    expect(answer.candidates?.[0]?.content?.parts).toStrictEqual([{ text: 'short', thought: true }, { text: 'Hello.' }]);
    expect(answer.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
    expect(answer.usageMetadata?.totalTokenCount).toBe(5);
  });

  const errorCases: GatewayErrorBody[] = [
    { kind: 'invalid-request', status: 400, message: 'bad part' },
    { kind: 'authentication', status: 401, message: 'unknown key' },
    { kind: 'rate-limit', status: 429, message: 'slow down' },
    { kind: 'upstream-unavailable', status: 503, message: 'vLLM is down' },
  ];

  it.each(errorCases)('an error body with status $status becomes an ApiError', async (error) => {
    server = await serveCannedResponse((request) => renderAnswer(adapter, { kind: 'error', error }, () => parseRouted(request)));
    const failure = await client()
      .models.generateContent(params)
      .catch((thrown: unknown) => thrown);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(error.status);
    expect((failure as ApiError).message).toContain(error.message);
  });

  it('a mid-stream error makes the stream throw an ApiError with its code', async () => {
    const ai = await serveStream(streamEvents.slice(0, 3), { kind: 'upstream-unavailable', status: 503, message: 'upstream went away' });
    const seen: GenerateContentResponse[] = [];
    const failure = await (async () => {
      for await (const chunk of await ai.models.generateContentStream(params)) seen.push(chunk);
    })().catch((thrown: unknown) => thrown);
    expect(seen.length).toBe(2);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(503);
    expect((failure as ApiError).message).toContain('upstream went away');
  });
});
