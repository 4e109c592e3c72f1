import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../src/providers/canonical.js';
import {
  convertAnthropicRequest,
  parseAnthropicCountTokensRequest,
} from '../../../src/providers/anthropic-messages/convert-anthropic-request.js';
import { RequestError } from '../../../src/providers/request-error.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/providers/anthropic/${name}`, import.meta.url), 'utf8'));

const base = { model: 'm', max_tokens: 100 };

describe('convertAnthropicRequest', () => {
  it('converts a Claude Code turn 2 (system blocks, role:system message, thinking + tool_use replay, is_error result)', () => {
    const expected: CanonicalRequest = {
      protocol: 'anthropic-messages',
      model: 'mock-model',
      stream: true,
      reasoning: true,
      sampling: { maxTokens: 32000 },
      messages: [
        {
          role: 'system',
          content:
            "You are a Claude agent, built on Anthropic's Claude Agent SDK.\n\n" +
            'You are an interactive CLI tool that helps users with software engineering tasks.',
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: "<system-reminder>\nToday's date is 2026-11-21.\n</system-reminder>" },
            { type: 'text', text: 'SCENARIO_TOOL: change world to mock-edited in hello.txt' },
          ],
        },
        { role: 'system', content: '# Agents\nThe Agent tool can launch these agent types: general-purpose.' },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'The user wants an edit. I will use sed.', signature: 'mocksig' },
            { type: 'text', text: 'I will edit the file now.' },
            {
              type: 'tool-call',
              id: 'toolu_mock2',
              name: 'Bash',
              arguments: JSON.stringify({
                command: "sed -i 's/world/mock-edited/' hello.txt && cat hello.txt",
                description: 'Edit hello.txt',
              }),
            },
          ],
        },
        {
          role: 'tool',
          toolCallId: 'toolu_mock2',
          content: [{ type: 'text', text: "sed in '/tmp/x/hello.txt' was blocked" }],
          isError: true,
        },
        { role: 'user', content: [{ type: 'text', text: '<system-reminder>Keep going.</system-reminder>' }] },
      ],
      tools: [
        {
          name: 'Bash',
          description: 'Executes a given bash command.',
          parameters: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            type: 'object',
            properties: { command: { type: 'string' }, description: { type: 'string' } },
            required: ['command'],
            additionalProperties: false,
          },
        },
      ],
    };
    expect(convertAnthropicRequest(fixture('claude-code-tool-turn2.request.json'))).toStrictEqual(expected);
  });

  const messageCases: Array<{ name: string; body: Record<string, unknown>; messages: CanonicalRequest['messages'] }> = [
    {
      name: 'string content and string system',
      body: { system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] },
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      ],
    },
    {
      name: 'an empty system is no message',
      body: { system: [], messages: [{ role: 'user', content: 'hi' }] },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    },
    {
      name: 'base64 and url images',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0' } },
              { type: 'image', source: { type: 'url', url: 'https://example.test/a.jpg' } },
            ],
          },
        ],
      },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', url: 'data:image/png;base64,iVBORw0', mediaType: 'image/png' },
            { type: 'image', url: 'https://example.test/a.jpg' },
          ],
        },
      ],
    },
    {
      name: 'text documents and search results are text-ified',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'document', title: 'README', context: 'repo root', source: { type: 'text', media_type: 'text/plain', data: 'Hello' } },
              { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'part 1' }] } },
              { type: 'search_result', source: 'https://s.test', title: 'T', content: [{ type: 'text', text: 'snippet' }] },
            ],
          },
        ],
      },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'README' },
            { type: 'text', text: 'repo root' },
            { type: 'text', text: 'Hello' },
            { type: 'text', text: 'part 1' },
            { type: 'text', text: 'T\nhttps://s.test' },
            { type: 'text', text: 'snippet' },
          ],
        },
      ],
    },
    {
      name: 'tool results with blocks, without content, and text before them keep their order',
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'before' },
              {
                type: 'tool_result',
                tool_use_id: 'a',
                content: [
                  { type: 'text', text: 'out' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'AAA' } },
                ],
              },
              { type: 'tool_result', tool_use_id: 'b', is_error: false },
              { type: 'text', text: 'after' },
            ],
          },
        ],
      },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'before' }] },
        {
          role: 'tool',
          toolCallId: 'a',
          content: [
            { type: 'text', text: 'out' },
            { type: 'image', url: 'data:image/jpeg;base64,AAA', mediaType: 'image/jpeg' },
          ],
        },
        { role: 'tool', toolCallId: 'b', content: [], isError: false },
        { role: 'user', content: [{ type: 'text', text: 'after' }] },
      ],
    },
    {
      name: 'a wrapped tool_use input replays the exact raw arguments',
      body: {
        messages: [
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'c1', name: 'Bash', input: { _polar_raw_arguments: '{"command": "ls' } }],
          },
        ],
      },
      messages: [{ role: 'assistant', content: [{ type: 'tool-call', id: 'c1', name: 'Bash', arguments: '{"command": "ls' }] }],
    },
    {
      name: 'assistant string content and a thinking block without signature',
      body: {
        messages: [
          { role: 'assistant', content: 'plain' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }] },
        ],
      },
      messages: [
        { role: 'assistant', content: [{ type: 'text', text: 'plain' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] },
      ],
    },
  ];

  it.each(messageCases)('messages: $name', ({ body, messages }) => {
    expect(convertAnthropicRequest({ ...base, ...body }).messages).toStrictEqual(messages);
  });

  const optionCases: Array<{ name: string; body: Record<string, unknown>; expected: Partial<CanonicalRequest> }> = [
    { name: 'tool_choice auto', body: { tool_choice: { type: 'auto' } }, expected: { toolChoice: 'auto' } },
    { name: 'tool_choice any', body: { tool_choice: { type: 'any' } }, expected: { toolChoice: 'required' } },
    { name: 'tool_choice none', body: { tool_choice: { type: 'none' } }, expected: { toolChoice: 'none' } },
    {
      name: 'tool_choice tool without parallel calls',
      body: { tool_choice: { type: 'tool', name: 'Bash', disable_parallel_tool_use: true } },
      expected: { toolChoice: { name: 'Bash' }, parallelToolCalls: false },
    },
    { name: 'thinking enabled', body: { thinking: { type: 'enabled', budget_tokens: 2048 } }, expected: { reasoning: true } },
    { name: 'thinking disabled', body: { thinking: { type: 'disabled' } }, expected: { reasoning: false } },
    {
      name: 'sampling parameters',
      body: { temperature: 0.5, top_p: 0.9, top_k: 20, stop_sequences: ['END'], stream: false },
      expected: { sampling: { maxTokens: 100, temperature: 0.5, topP: 0.9, topK: 20, stop: ['END'] }, stream: false },
    },
    { name: 'null optional fields are absent', body: { temperature: null, tool_choice: null }, expected: { sampling: { maxTokens: 100 } } },
  ];

  it.each(optionCases)('options: $name', ({ body, expected }) => {
    const request = convertAnthropicRequest({ ...base, messages: [], ...body });
    expect(request).toMatchObject(expected);
    if (!('reasoning' in expected)) expect(request.reasoning).toBeUndefined();
    if (!('toolChoice' in expected)) expect(request.toolChoice).toBeUndefined();
  });

  const errorCases: Array<{ name: string; body: unknown; field: string | undefined; message: RegExp }> = [
    { name: 'body is not an object', body: 'hello', field: undefined, message: /expected object/ },
    { name: 'missing max_tokens', body: { model: 'm', messages: [] }, field: 'max_tokens', message: /max_tokens/ },
    { name: 'bad role', body: { ...base, messages: [{ role: 'tool', content: 'x' }] }, field: 'messages[0].role', message: /role/ },
    {
      name: 'ill-typed text block',
      body: { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] },
      field: 'messages[0].content[0].text',
      message: /expected string/,
    },
    {
      name: 'PDF document',
      body: {
        ...base,
        messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' } }] }],
      },
      field: 'messages[0].content[0].source.type',
      message: /PDF/,
    },
    {
      name: 'image from the Files API',
      body: { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] },
      field: 'messages[0].content[0].source.type',
      message: /Files API/,
    },
    {
      name: 'base64 image without media_type',
      body: { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', data: 'x' } }] }] },
      field: 'messages[0].content[0].source.media_type',
      message: /missing/,
    },
    {
      name: 'tool_use in a user message',
      body: { ...base, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }] },
      field: 'messages[0].content[0]',
      message: /assistant message/,
    },
    {
      name: 'server tool block in an assistant message',
      body: { ...base, messages: [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 'a', name: 'web_search', input: {} }] }] },
      field: 'messages[0].content[0].type',
      message: /server_tool_use/,
    },
    {
      name: 'non-text block in a system message',
      body: { ...base, messages: [{ role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'u' } }] }] },
      field: 'messages[0].content[0].type',
      message: /text/,
    },
    {
      name: 'tool_choice tool without a name',
      body: { ...base, messages: [], tool_choice: { type: 'tool' } },
      field: 'tool_choice.name',
      message: /required/,
    },
    {
      name: 'client tool without input_schema',
      body: { ...base, messages: [], tools: [{ name: 'x' }] },
      field: 'tools[0].input_schema',
      message: /input_schema/,
    },
  ];

  it.each(errorCases)('rejects: $name', ({ body, field, message }) => {
    let thrown: unknown;
    try {
      convertAnthropicRequest(body);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RequestError);
    expect((thrown as RequestError).field).toBe(field);
    expect((thrown as RequestError).message).toMatch(message);
  });
});

describe('parseAnthropicCountTokensRequest', () => {
  it('needs no max_tokens and never streams', () => {
    const request = parseAnthropicCountTokensRequest({ model: 'm', stream: true, messages: [{ role: 'user', content: 'count me' }] });
    expect(request).toStrictEqual({
      protocol: 'anthropic-messages',
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'count me' }] }],
      tools: [],
      sampling: {},
      stream: false,
    });
  });

  it('still validates the messages', () => {
    expect(() => parseAnthropicCountTokensRequest({ model: 'm', messages: 'no' })).toThrow(RequestError);
  });
});
