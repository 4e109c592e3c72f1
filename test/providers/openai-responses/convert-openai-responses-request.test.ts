import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convertOpenAIResponsesRequest } from '../../../src/providers/openai-responses/convert-openai-responses-request.js';
import { RequestError } from '../../../src/providers/request-error.js';

const FIXTURES = new URL('../../fixtures/providers/openai-responses/', import.meta.url);
const readJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

const base = (extra: Record<string, unknown>) => ({ model: 'm', input: 'hi', ...extra });
const messagesOf = (body: unknown) => convertOpenAIResponsesRequest(body).request.messages;

describe('convertOpenAIResponsesRequest: recorded harness requests', () => {
  it.each(['codex-turn2', 'pi-responses-turn2'])('%s converts to the expected canonical request', (scenario) => {
    expect(convertOpenAIResponsesRequest(readJson(`${scenario}.request.json`)).request).toStrictEqual(
      readJson(`${scenario}.canonical.json`),
    );
  });

  it('echoes the function tools as declared (strict kept) and skips hosted and namespace tools', () => {
    const { echo } = convertOpenAIResponsesRequest(readJson('codex-turn2.request.json'));
    expect(echo.tools.map((tool) => [tool.name, tool.strict])).toStrictEqual([
      ['exec_command', false],
      ['view_image', false],
    ]);
    expect(echo).toMatchObject({ tool_choice: 'auto', parallel_tool_calls: true, reasoning: { effort: null, summary: 'auto' } });
  });
});

describe('convertOpenAIResponsesRequest: single fields', () => {
  it('a string input is one user message', () => {
    expect(messagesOf(base({}))).toStrictEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('empty instructions add no system message', () => {
    expect(messagesOf(base({ instructions: '' }))).toHaveLength(1);
  });

  it.each([
    [{ reasoning: { effort: 'high' } }, true],
    [{ reasoning: { effort: 'none' } }, false],
    [{ reasoning: null }, undefined],
    [{}, undefined],
  ])('reasoning %j means %s', (extra, expected) => {
    expect(convertOpenAIResponsesRequest(base(extra)).request.reasoning).toBe(expected);
  });

  it('merges consecutive assistant-side items into one assistant message per turn', () => {
    const input = [
      { role: 'user', content: 'go' },
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'r1' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'first' }, { type: 'refusal', refusal: 'second' }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      { type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'r2a' }, { type: 'reasoning_text', text: 'r2b' }] },
      { type: 'reasoning', summary: [] },
      { type: 'function_call', call_id: 'c2', name: 'f', arguments: '{"x":1}' },
    ];
    expect(messagesOf(base({ input }))).toStrictEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'r1' },
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
          { type: 'tool-call', id: 'c1', name: 'f', arguments: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'ok' }] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'r2a' },
          { type: 'reasoning', text: 'r2b' },
          { type: 'tool-call', id: 'c2', name: 'f', arguments: '{"x":1}' },
        ],
      },
    ]);
  });

  it('keeps an encrypted-only reasoning item as an empty reasoning part with its signature', () => {
    const input = [{ type: 'reasoning', summary: [], encrypted_content: 'opaque' }];
    expect(messagesOf(base({ input }))).toStrictEqual([{ role: 'assistant', content: [{ type: 'reasoning', text: '', signature: 'opaque' }] }]);
  });
});

describe('convertOpenAIResponsesRequest: rejected requests name the field', () => {
  it.each([
    ['missing input', { model: 'm' }, 'input'],
    ['previous_response_id', base({ previous_response_id: 'resp_1' }), 'previous_response_id'],
    ['conversation', base({ conversation: 'conv_1' }), 'conversation'],
    ['stored prompt', base({ prompt: { id: 'pmpt_1' } }), 'prompt'],
    ['background mode', base({ background: true }), 'background'],
    ['unknown item type', base({ input: [{ type: 'web_search_call', id: 'ws_1' }] }), 'input[0].type'],
    ['item_reference', base({ input: [{ type: 'item_reference', id: 'msg_1' }] }), 'input[0].type'],
    ['function_call without call_id', base({ input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }), 'input[0].call_id'],
    ['message role tool', base({ input: [{ role: 'tool', content: 'x' }] }), 'input[0].role'],
    ['image by file id', base({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }), 'input[0].content[0].image_url'],
    ['input_file', base({ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file_1' }] }] }), 'input[0].content[0].type'],
    ['image in a developer message', base({ input: [{ role: 'developer', content: [{ type: 'input_image', image_url: 'https://x.test/a.png' }] }] }), 'input[0].content[0]'],
    ['function tool without name', base({ tools: [{ type: 'web_search' }, { type: 'function', parameters: {} }] }), 'tools[1].name'],
    ['hosted tool_choice', base({ tool_choice: { type: 'web_search_preview' } }), 'tool_choice.type'],
    ['function tool_choice without name', base({ tool_choice: { type: 'function' } }), 'tool_choice.name'],
    ['negative max_output_tokens', base({ max_output_tokens: -1 }), 'max_output_tokens'],
  ])('%s', (_name, body, field) => {
    let caught: unknown;
    try {
      convertOpenAIResponsesRequest(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestError);
    expect((caught as RequestError).field).toBe(field);
  });

  it('says how to fix a stateful request', () => {
    expect(() => convertOpenAIResponsesRequest(base({ previous_response_id: 'resp_1' }))).toThrow(/stateless.*store:false/);
  });
});
