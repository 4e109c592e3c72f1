// One driver per wire protocol, so a conformance table can run the same scenario through each:
// `ask` goes through the official SDK (so the SDK must parse the answer); `raw` builds the plain
// HTTP request for error cases; `isErrorShape` checks the client's own error body.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { Protocol } from '../../src/providers/canonical.js';

export interface Answer {
  text: string;
  reasoning: string;
  toolCalls: { name: string; args: unknown }[];
}

export interface AskOptions {
  prompt: string;
  stream: boolean;
  /** Include a finished tool call and its result in the history. */
  withToolResult?: boolean;
  signal?: AbortSignal;
}

export interface RawRequest {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface Driver {
  protocol: Protocol;
  ask(baseUrl: string, key: string, options: AskOptions): Promise<Answer>;
  raw(key: string, prompt: string, stream: boolean): RawRequest;
  isErrorShape(status: number, body: unknown): boolean;
}

const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

const openAIError = (_status: number, body: unknown) => typeof record(record(body).error).message === 'string';

export const openAIChatDriver: Driver = {
  protocol: 'openai-chat',
  async ask(baseUrl, key, { prompt, stream, withToolResult, signal }) {
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }];
    if (withToolResult) {
      messages.push(
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      );
    }
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: SCHEMA } }];
    if (stream) {
      // Accumulate by hand: the SDK's stream helper does not accumulate `reasoning_content`.
      const answer: Answer = { text: '', reasoning: '', toolCalls: [] };
      const calls: { name: string; args: string }[] = [];
      for await (const chunk of await client.chat.completions.create({ model: 'm', messages, tools, stream: true }, { signal })) {
        const delta = chunk.choices[0]?.delta as (OpenAI.Chat.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string }) | undefined;
        answer.text += delta?.content ?? '';
        answer.reasoning += delta?.reasoning_content ?? '';
        for (const call of delta?.tool_calls ?? []) {
          calls[call.index] ??= { name: '', args: '' };
          calls[call.index]!.name += call.function?.name ?? '';
          calls[call.index]!.args += call.function?.arguments ?? '';
        }
      }
      answer.toolCalls = calls.map((call) => ({ name: call.name, args: JSON.parse(call.args) }));
      return answer;
    }
    const completion = await client.chat.completions.create({ model: 'm', messages, tools }, { signal });
    const message = completion.choices[0]!.message as OpenAI.Chat.ChatCompletionMessage & { reasoning_content?: string };
    return {
      text: message.content ?? '',
      reasoning: message.reasoning_content ?? '',
      toolCalls: (message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [{ name: call.function.name, args: JSON.parse(call.function.arguments) }] : [])),
    };
  },
  raw: (key, prompt, stream) => ({
    path: '/v1/chat/completions',
    headers: { authorization: `Bearer ${key}` },
    body: { model: 'm', stream, messages: [{ role: 'user', content: prompt }] },
  }),
  isErrorShape: openAIError,
};

export const openAIResponsesDriver: Driver = {
  protocol: 'openai-responses',
  async ask(baseUrl, key, { prompt, stream, withToolResult, signal }) {
    const client = new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: key, maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: prompt }];
    if (withToolResult) {
      input.push(
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      );
    }
    const tools: OpenAI.Responses.Tool[] = [{ type: 'function', name: 'get_weather', parameters: SCHEMA, strict: false }];
    const response = stream
      ? await client.responses.stream({ model: 'm', input, tools, store: false }, { signal }).finalResponse()
      : await client.responses.create({ model: 'm', input, tools, store: false }, { signal });
    const reasoning = response.output
      .flatMap((item) => (item.type === 'reasoning' ? (item.content ?? []).map((part) => part.text) : []))
      .join('');
    return {
      text: response.output_text,
      reasoning,
      toolCalls: response.output.flatMap((item) => (item.type === 'function_call' ? [{ name: item.name, args: JSON.parse(item.arguments) }] : [])),
    };
  },
  raw: (key, prompt, stream) => ({
    path: '/v1/responses',
    headers: { authorization: `Bearer ${key}` },
    body: { model: 'm', stream, store: false, input: prompt },
  }),
  isErrorShape: openAIError,
};

export const anthropicDriver: Driver = {
  protocol: 'anthropic-messages',
  async ask(baseUrl, key, { prompt, stream, withToolResult, signal }) {
    const client = new Anthropic({ baseURL: baseUrl, apiKey: key, maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }];
    if (withToolResult) {
      messages.push(
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
      );
    }
    const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: SCHEMA as Anthropic.Tool.InputSchema }];
    const params = { model: 'm', max_tokens: 1024, messages, tools };
    const message = stream ? await client.messages.stream(params, { signal }).finalMessage() : await client.messages.create(params, { signal });
    return {
      text: message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join(''),
      reasoning: message.content.flatMap((block) => (block.type === 'thinking' ? [block.thinking] : [])).join(''),
      toolCalls: message.content.flatMap((block) => (block.type === 'tool_use' ? [{ name: block.name, args: block.input }] : [])),
    };
  },
  raw: (key, prompt, stream) => ({
    path: '/v1/messages?beta=true',
    headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: { model: 'm', max_tokens: 256, stream, messages: [{ role: 'user', content: prompt }] },
  }),
  isErrorShape: (_status, body) => record(body).type === 'error' && typeof record(record(body).error).type === 'string',
};

export const googleDriver: Driver = {
  protocol: 'google-genai',
  async ask(baseUrl, key, { prompt, stream, withToolResult, signal }) {
    const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl } });
    const contents: { role: string; parts: Record<string, unknown>[] }[] = [{ role: 'user', parts: [{ text: prompt }] }];
    if (withToolResult) {
      contents.push(
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
      );
    }
    const config = { abortSignal: signal, tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: SCHEMA }] }] };
    const parts: { text?: string; thought?: boolean; functionCall?: { name?: string; args?: unknown } }[] = [];
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream({ model: 'm', contents, config })) parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    } else {
      const response = await ai.models.generateContent({ model: 'm', contents, config });
      parts.push(...(response.candidates?.[0]?.content?.parts ?? []));
    }
    return {
      text: parts.filter((part) => !part.thought).map((part) => part.text ?? '').join(''),
      reasoning: parts.filter((part) => part.thought).map((part) => part.text ?? '').join(''),
      toolCalls: parts.flatMap((part) => (part.functionCall ? [{ name: part.functionCall.name ?? '', args: part.functionCall.args }] : [])),
    };
  },
  raw: (key, prompt, stream) => ({
    path: stream ? '/v1beta/models/m:streamGenerateContent?alt=sse' : '/v1beta/models/m:generateContent',
    headers: { 'x-goog-api-key': key },
    body: { contents: [{ role: 'user', parts: [{ text: prompt }] }] },
  }),
  isErrorShape: (status, body) => {
    const error = record(record(body).error);
    return error.code === status && typeof error.status === 'string' && typeof error.message === 'string';
  },
};

export const DRIVERS: Driver[] = [openAIChatDriver, openAIResponsesDriver, anthropicDriver, googleDriver];

/** Sends a raw request; returns status and parsed JSON (or text). */
export async function sendRaw(baseUrl: string, request: RawRequest, bodyText?: string): Promise<{ status: number; body: unknown; text: string }> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...request.headers },
    body: bodyText ?? JSON.stringify(request.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: response.status, body, text };
}
