// The real openai SDK (v6) must parse every answer the Responses adapter produces, including
// through its stream accumulator (which checks output and content indexes).
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { openAIResponsesAdapter } from '../../../src/providers/openai-responses/openai-responses-adapter.js';
import { type AdapterServer, type Answer, serveAdapter } from '../../helpers/serve-adapter.js';
import { READ_ARGS_A, READ_ARGS_B, REASONING_TEXT_TWO_TOOLS, REASONING_TEXT_TWO_TOOLS_RESPONSE, TRUNCATED_TEXT } from '../openai-chat/stream-scenarios.js';

let server: AdapterServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(plan: Answer): Promise<OpenAI> {
  server = await serveAdapter(openAIResponsesAdapter, plan);
  return new OpenAI({ apiKey: 'polar-test', baseURL: server.baseURL, maxRetries: 0 });
}

const PARAMS = {
  model: 'client-model',
  store: false,
  input: [
    { role: 'developer' as const, content: 'Be brief.' },
    { role: 'user' as const, content: [{ type: 'input_text' as const, text: 'read a and b' }] },
  ],
  tools: [{ type: 'function' as const, name: 'read', strict: false, parameters: { type: 'object', properties: { path: { type: 'string' } } } }],
  reasoning: { summary: 'auto' as const },
};

const EXPECTED_OUTPUT = [
  { type: 'reasoning', content: [{ type: 'reasoning_text', text: 'Need both files.' }] },
  { type: 'message', status: 'completed', content: [{ type: 'output_text', text: 'Reading them.' }] },
  { type: 'function_call', status: 'completed', call_id: 'call_a', name: 'read', arguments: READ_ARGS_A },
  { type: 'function_call', status: 'completed', call_id: 'call_b', name: 'read', arguments: READ_ARGS_B },
];

describe('openai SDK against the Responses adapter', () => {
  it('accumulates the stream (responses.stream) into the final response', async () => {
    const client = await clientFor({ kind: 'stream', events: REASONING_TEXT_TWO_TOOLS });
    const stream = client.responses.stream(PARAMS);
    const textDeltas: string[] = [];
    stream.on('response.output_text.delta', (event) => textDeltas.push(event.snapshot));
    const final = await stream.finalResponse();
    expect(final).toMatchObject({ id: 'resp_abc', status: 'completed', output_text: 'Reading them.', output: EXPECTED_OUTPUT });
    expect(final.usage).toMatchObject({ input_tokens: 42, output_tokens: 17, total_tokens: 59 });
    expect(textDeltas).toStrictEqual(['Reading ', 'Reading them.']);
    expect(server?.requests[0]).toMatchObject({ stream: true, reasoning: true, tools: [{ name: 'read' }] });
  });

  it('yields typed events from responses.create({stream:true}), ending with response.completed', async () => {
    const client = await clientFor({ kind: 'stream', events: TRUNCATED_TEXT });
    const stream = await client.responses.create({ ...PARAMS, stream: true });
    const types: string[] = [];
    let last: OpenAI.Responses.ResponseStreamEvent | undefined;
    for await (const event of stream) {
      types.push(event.type);
      last = event;
    }
    expect(types[0]).toBe('response.created');
    expect(last?.type).toBe('response.completed');
    expect(last?.type === 'response.completed' ? last.response : undefined).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
  });

  it('answers non-streaming requests with a Response the SDK reads output_text from', async () => {
    const client = await clientFor({ kind: 'json', response: REASONING_TEXT_TWO_TOOLS_RESPONSE });
    const response = await client.responses.create(PARAMS);
    expect(response).toMatchObject({ object: 'response', status: 'completed', output_text: 'Reading them.', output: EXPECTED_OUTPUT });
    expect(response.tools).toMatchObject([{ type: 'function', name: 'read', strict: false }]);
  });

  it('ends a failed stream with response.failed carrying the error code', async () => {
    const client = await clientFor({
      kind: 'stream',
      events: REASONING_TEXT_TWO_TOOLS.slice(0, 4),
      failWith: { kind: 'context-overflow', message: 'prompt too long', status: 400 },
    });
    const final = await client.responses.stream(PARAMS).finalResponse();
    expect(final).toMatchObject({ status: 'failed', error: { code: 'context_length_exceeded', message: 'prompt too long' } });
  });

  it('surfaces an HTTP error with its status and code', async () => {
    const client = await clientFor({ kind: 'error', error: { kind: 'rate-limit', message: 'slow down', status: 429 } });
    const failure = client.responses.create(PARAMS);
    await expect(failure).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    await expect(failure).rejects.toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
  });
});
