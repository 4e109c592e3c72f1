import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { convertOpenAIChatRequest } from '../../../src/providers/openai-chat/convert-openai-chat-request.js';
import { RequestError } from '../../../src/providers/request-error.js';

const FIXTURES = new URL('../../fixtures/providers/openai-chat/', import.meta.url);
const readJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));

type Converted = ReturnType<typeof convertOpenAIChatRequest>;

const user = { role: 'user', content: 'hi' };
const base = (extra: Record<string, unknown>) => ({ model: 'm', messages: [user], ...extra });

describe('convertOpenAIChatRequest: recorded harness requests', () => {
  it.each([
    ['qwen-turn2', true],
    ['pi-turn2', true],
  ])('%s converts to the expected canonical request', (scenario, includeUsage) => {
    const converted = convertOpenAIChatRequest(readJson(`${scenario}.request.json`));
    expect(converted.request).toStrictEqual(readJson(`${scenario}.canonical.json`));
    expect(converted.includeUsage).toBe(includeUsage);
  });
});

describe('convertOpenAIChatRequest: single fields', () => {
  it.each([
    ['stream absent means not streamed', base({}), (r: Converted) => [r.request.stream, r.includeUsage], [false, false]],
    ['max_completion_tokens wins over max_tokens', base({ max_tokens: 5, max_completion_tokens: 9 }), (r: Converted) => r.request.sampling, { maxTokens: 9 }],
    ['null sampling fields are "server default"', base({ temperature: null, top_p: null, stop: null, seed: null }), (r: Converted) => r.request.sampling, {}],
    ['stop array stays an array', base({ stop: ['a', 'b'] }), (r: Converted) => r.request.sampling.stop, ['a', 'b']],
    ['reasoning_effort none turns reasoning off', base({ reasoning_effort: 'none' }), (r: Converted) => r.request.reasoning, false],
    ['reasoning_effort high turns reasoning on', base({ reasoning_effort: 'high' }), (r: Converted) => r.request.reasoning, true],
    ['enable_thinking false wins', base({ reasoning_effort: 'high', chat_template_kwargs: { enable_thinking: false } }), (r: Converted) => r.request.reasoning, false],
    ['no reasoning field leaves it unsaid', base({}), (r: Converted) => 'reasoning' in r.request, false],
    ['n=1 is accepted', base({ n: 1 }), (r: Converted) => r.request.messages.length, 1],
    ['tool_choice string', base({ tool_choice: 'required' }), (r: Converted) => r.request.toolChoice, 'required'],
    [
      'a tool without parameters takes none',
      base({ tools: [{ type: 'function', function: { name: 'now' } }] }),
      (r: Converted) => r.request.tools,
      [{ name: 'now', parameters: { type: 'object', properties: {} } }],
    ],
    [
      'system text parts are joined with a newline',
      { model: 'm', messages: [{ role: 'system', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] },
      (r: Converted) => r.request.messages,
      [{ role: 'system', content: 'a\nb', sourceRole: 'system' }],
    ],
    [
      'user images keep their URL and data-URL media type',
      {
        model: 'm',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,AAAA' } },
              { type: 'image_url', image_url: { url: 'https://example.test/x.png', detail: 'low' } },
            ],
          },
        ],
      },
      (r: Converted) => r.request.messages,
      [
        {
          role: 'user',
          content: [
            { type: 'image', url: 'data:image/jpeg;base64,AAAA', mediaType: 'image/jpeg' },
            { type: 'image', url: 'https://example.test/x.png' },
          ],
        },
      ],
    ],
    [
      'assistant refusal parts become text; empty content is no part',
      {
        model: 'm',
        messages: [
          { role: 'assistant', content: [{ type: 'refusal', refusal: 'no' }] },
          { role: 'assistant', content: '' },
        ],
      },
      (r: Converted) => r.request.messages,
      [
        { role: 'assistant', content: [{ type: 'text', text: 'no' }] },
        { role: 'assistant', content: [] },
      ],
    ],
    [
      'reasoning_content wins over reasoning when both are replayed',
      { model: 'm', messages: [{ role: 'assistant', content: 'x', reasoning_content: 'rc', reasoning: 'r' }] },
      (r: Converted) => r.request.messages[0],
      { role: 'assistant', content: [{ type: 'reasoning', text: 'rc' }, { type: 'text', text: 'x' }] },
    ],
  ])('%s', (_name, body, pick, expected) => {
    expect(pick(convertOpenAIChatRequest(body))).toStrictEqual(expected);
  });
});

describe('convertOpenAIChatRequest: rejected requests name the field', () => {
  it.each([
    ['not an object', null, undefined],
    ['missing model', { messages: [user] }, 'model'],
    ['missing messages', { model: 'm' }, 'messages'],
    ['empty messages', { model: 'm', messages: [] }, 'messages'],
    ['ill-typed content', { model: 'm', messages: [user, { role: 'user', content: 5 }] }, 'messages[1].content'],
    ['text part without text', { model: 'm', messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages[0].content[0].text'],
    ['unknown role', { model: 'm', messages: [{ role: 'bot', content: 'x' }] }, 'messages[0].role'],
    ['legacy function role', { model: 'm', messages: [{ role: 'function', name: 'f', content: 'x' }] }, 'messages[0].role'],
    ['legacy function_call', { model: 'm', messages: [{ role: 'assistant', content: null, function_call: { name: 'f', arguments: '{}' } }] }, 'messages[0].function_call'],
    ['tool message without tool_call_id', { model: 'm', messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    [
      'audio part',
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'input_audio', input_audio: {} }] }] },
      'messages[0].content[1].type',
    ],
    ['tool call without function', { model: 'm', messages: [{ role: 'assistant', tool_calls: [{ id: 'c' }] }] }, 'messages[0].tool_calls[0].function'],
    ['custom tool', base({ tools: [{ type: 'custom', custom: { name: 'x' } }] }), 'tools[0].type'],
    ['unknown tool type', base({ tools: [{ type: 'web_search' }] }), 'tools[0].type'],
    ['function tool without name', base({ tools: [{ type: 'function', function: {} }] }), 'tools[0].function.name'],
    ['allowed_tools choice', base({ tool_choice: { type: 'allowed_tools', allowed_tools: {} } }), 'tool_choice.type'],
    ['n > 1', base({ n: 2 }), 'n'],
    ['ill-typed max_tokens', base({ max_tokens: 'lots' }), 'max_tokens'],
    ['ill-typed stop', base({ stop: 5 }), 'stop'],
  ])('%s', (_name, body, field) => {
    let caught: unknown;
    try {
      convertOpenAIChatRequest(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestError);
    expect((caught as RequestError).field).toBe(field);
    expect((caught as RequestError).message.length).toBeGreaterThan(10);
  });
});
