import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../src/providers/canonical.js';
import { convertGoogleRequest } from '../../../src/providers/google-genai/convert-google-request.js';
import { RequestError } from '../../../src/providers/request-error.js';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/providers/google/${name}`, import.meta.url), 'utf8'));

const context = { pathModel: 'mock-model', pathStream: true };
const user = (text: string) => ({ role: 'user', parts: [{ text }] });

describe('convertGoogleRequest', () => {
  it('converts a Gemini CLI turn 2 (systemInstruction, invented ids, id-less calls, parametersJsonSchema)', () => {
    const expected: CanonicalRequest = {
      protocol: 'google-genai',
      model: 'mock-model',
      stream: true,
      reasoning: true,
      sampling: { temperature: 1, topP: 0.95, topK: 64 },
      messages: [
        { role: 'system', content: 'You are an interactive CLI agent.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' },
            { type: 'text', text: 'SCENARIO_TOOL: change world to mock-edited in hello.txt' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'I will edit the file.' },
            {
              type: 'tool-call',
              id: 'run_shell_command_1795251454895_0',
              name: 'run_shell_command',
              arguments: JSON.stringify({ command: "sed -i 's/world/mock-edited/' hello.txt && cat hello.txt", description: 'Edit' }),
            },
            { type: 'tool-call', id: 'call_1_1', name: 'read_file', arguments: '{"file_path":"a.txt"}' },
            { type: 'tool-call', id: 'call_1_2', name: 'read_file', arguments: '{"file_path":"b.txt"}' },
          ],
        },
        {
          role: 'tool',
          toolCallId: 'run_shell_command_1795251454895_0',
          name: 'run_shell_command',
          content: [{ type: 'text', text: '<untrusted_context>\nOutput: hello mock-edited\n</untrusted_context>' }],
        },
        { role: 'tool', toolCallId: 'call_1_1', name: 'read_file', content: [{ type: 'text', text: 'contents of a' }] },
        {
          role: 'tool',
          toolCallId: 'call_1_2',
          name: 'read_file',
          content: [{ type: 'text', text: 'b.txt: no such file' }],
          isError: true,
        },
      ],
      tools: [
        {
          name: 'run_shell_command',
          description: 'Runs a shell command.',
          parameters: {
            type: 'object',
            properties: { command: { type: 'string' }, description: { type: 'string' } },
            required: ['command'],
          },
        },
        {
          name: 'read_file',
          description: 'Reads a file.',
          parameters: {
            type: 'object',
            properties: { file_path: { type: 'string' }, limit: { type: ['integer', 'null'] } },
            required: ['file_path'],
          },
        },
      ],
    };
    expect(convertGoogleRequest(fixture('gemini-cli-tool-turn2.request.json'), context)).toStrictEqual(expected);
  });

  const messageCases: Array<{ name: string; body: Record<string, unknown>; messages: CanonicalRequest['messages'] }> = [
    {
      name: 'thought parts are reasoning (with their signature); signature-only parts are skipped',
      body: {
        contents: [
          user('q'),
          {
            role: 'model',
            parts: [{ text: 'hmm', thought: true, thoughtSignature: 'sig' }, { thoughtSignature: 'only' }, { text: 'answer' }],
          },
        ],
      },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'hmm', signature: 'sig' },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    },
    {
      name: 'a response without id and without a matching call gets the same synthetic id rule',
      body: { contents: [{ role: 'user', parts: [{ functionResponse: { name: 'ghost', response: { a: 1, b: 2 } } }] }] },
      messages: [{ role: 'tool', toolCallId: 'call_0_0', name: 'ghost', content: [{ type: 'text', text: '{"a":1,"b":2}' }] }],
    },
    {
      name: 'responses answer id-less calls in order; text and images keep their place',
      body: {
        contents: [
          { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'f' } }] },
          {
            parts: [
              { functionResponse: { name: 'f', response: { output: 'first' } } },
              { text: 'between' },
              { functionResponse: { name: 'f', response: { output: 'second' }, parts: [{ inlineData: { mimeType: 'image/png', data: 'AAA' } }] } },
              { inlineData: { mimeType: 'image/jpeg', data: 'BBB' } },
              { fileData: { mimeType: 'image/png', fileUri: 'https://files.test/x.png' } },
            ],
          },
        ],
      },
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool-call', id: 'call_0_0', name: 'f', arguments: '{}' },
            { type: 'tool-call', id: 'call_0_1', name: 'f', arguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'call_0_0', name: 'f', content: [{ type: 'text', text: 'first' }] },
        { role: 'user', content: [{ type: 'text', text: 'between' }] },
        {
          role: 'tool',
          toolCallId: 'call_0_1',
          name: 'f',
          content: [
            { type: 'text', text: 'second' },
            { type: 'image', url: 'data:image/png;base64,AAA', mediaType: 'image/png' },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'image', url: 'data:image/jpeg;base64,BBB', mediaType: 'image/jpeg' },
            { type: 'image', url: 'https://files.test/x.png', mediaType: 'image/png' },
          ],
        },
      ],
    },
    {
      name: 'a wrapped functionCall replays its exact raw arguments; string systemInstruction',
      body: {
        systemInstruction: 'sys',
        contents: [{ role: 'model', parts: [{ functionCall: { id: 'c', name: 'f', args: { _polar_raw_arguments: '{"x": tru' } } }] }],
      },
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{"x": tru' }] },
      ],
    },
    {
      name: 'snake_case field names are accepted; argument keys stay as sent',
      body: {
        system_instruction: { parts: [{ text: 'a' }, { text: 'b' }] },
        contents: [
          { role: 'user', parts: [{ inline_data: { mime_type: 'image/png', data: 'Q' } }] },
          { role: 'model', parts: [{ function_call: { name: 'f', args: { file_path: 'x' } } }] },
        ],
      },
      messages: [
        { role: 'system', content: 'a\n\nb' },
        { role: 'user', content: [{ type: 'image', url: 'data:image/png;base64,Q', mediaType: 'image/png' }] },
        { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1_0', name: 'f', arguments: '{"file_path":"x"}' }] },
      ],
    },
  ];

  it.each(messageCases)('messages: $name', ({ body, messages }) => {
    expect(convertGoogleRequest(body, context).messages).toStrictEqual(messages);
  });

  const optionCases: Array<{ name: string; body: Record<string, unknown>; expected: Partial<CanonicalRequest> }> = [
    {
      name: 'all generation settings',
      body: {
        generationConfig: {
          temperature: 0.2,
          topP: 0.8,
          topK: 10,
          maxOutputTokens: 99,
          stopSequences: ['X'],
          seed: 7,
          presencePenalty: 0.1,
          frequencyPenalty: 0.3,
          candidateCount: 1,
          thinkingConfig: { thinkingBudget: 0, includeThoughts: true },
        },
      },
      expected: {
        sampling: { maxTokens: 99, temperature: 0.2, topP: 0.8, topK: 10, stop: ['X'], seed: 7, presencePenalty: 0.1, frequencyPenalty: 0.3 },
        reasoning: false,
      },
    },
    { name: 'mode AUTO', body: { toolConfig: { functionCallingConfig: { mode: 'AUTO' } } }, expected: { toolChoice: 'auto' } },
    { name: 'mode NONE', body: { toolConfig: { functionCallingConfig: { mode: 'NONE' } } }, expected: { toolChoice: 'none' } },
    { name: 'mode ANY', body: { toolConfig: { functionCallingConfig: { mode: 'ANY' } } }, expected: { toolChoice: 'required' } },
    {
      name: 'mode ANY with one allowed function',
      body: { toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } } },
      expected: { toolChoice: { name: 'f' } },
    },
    {
      name: 'a declaration without parameters takes none; other tool kinds are skipped',
      body: { tools: [{ functionDeclarations: [{ name: 'now' }] }, { codeExecution: {} }] },
      expected: { tools: [{ name: 'now', parameters: { type: 'object', properties: {} } }] },
    },
  ];

  it.each(optionCases)('options: $name', ({ body, expected }) => {
    expect(convertGoogleRequest({ contents: [user('x')], ...body }, { pathModel: 'm' })).toMatchObject(expected);
  });

  it('streams only when the path says so', () => {
    expect(convertGoogleRequest({ contents: [] }, { pathModel: 'm' }).stream).toBe(false);
    expect(convertGoogleRequest({ contents: [] }, { pathModel: 'm', pathStream: true }).stream).toBe(true);
  });

  const errorCases: Array<{ name: string; body: unknown; pathModel?: string; field: string | undefined; message: RegExp }> = [
    { name: 'no model in the path', body: { contents: [] }, pathModel: undefined, field: 'model', message: /URL path/ },
    { name: 'missing contents', body: {}, field: 'contents', message: /missing/ },
    { name: 'ill-typed text', body: { contents: [{ role: 'user', parts: [{ text: 3 }] }] }, field: 'contents[0].parts[0].text', message: /string/ },
    { name: 'unknown role', body: { contents: [{ role: 'system', parts: [] }] }, field: 'contents[0].role', message: /role/ },
    {
      name: 'two candidates',
      body: { contents: [], generationConfig: { candidateCount: 2 } },
      field: 'generationConfig.candidateCount',
      message: /one candidate/,
    },
    { name: 'cached content', body: { contents: [], cachedContent: 'cachedContents/1' }, field: 'cachedContent', message: /cache/ },
    {
      name: 'a PDF inline',
      body: { contents: [{ parts: [{ inlineData: { mimeType: 'application/pdf', data: 'JV' } }] }] },
      field: 'contents[0].parts[0].inlineData.mimeType',
      message: /only images/,
    },
    {
      name: 'a function call in a user turn',
      body: { contents: [{ role: 'user', parts: [{ functionCall: { name: 'f' } }] }] },
      field: 'contents[0].parts[0].functionCall',
      message: /user turn/,
    },
    {
      name: 'code execution parts',
      body: { contents: [{ role: 'model', parts: [{ executableCode: { code: 'print(1)' } }] }] },
      field: 'contents[0].parts[0].executableCode',
      message: /model turn/,
    },
    {
      name: 'two kinds of data in one part',
      body: { contents: [{ parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: 'x' } }] }] },
      field: 'contents[0].parts[0]',
      message: /one kind of data/,
    },
    {
      name: 'both parameter schemas',
      body: { contents: [], tools: [{ functionDeclarations: [{ name: 'f', parameters: {}, parametersJsonSchema: {} }] }] },
      field: 'tools[0].functionDeclarations[0]',
      message: /not both/,
    },
    {
      name: 'unknown calling mode',
      body: { contents: [], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } },
      field: 'toolConfig.functionCallingConfig.mode',
      message: /SOMETIMES/,
    },
  ];

  it.each(errorCases)('rejects: $name', ({ body, pathModel = 'm', field, message, name }) => {
    let thrown: unknown;
    try {
      convertGoogleRequest(body, name === 'no model in the path' ? {} : { pathModel });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RequestError);
    expect((thrown as RequestError).field).toBe(field);
    expect((thrown as RequestError).message).toMatch(message);
  });
});
