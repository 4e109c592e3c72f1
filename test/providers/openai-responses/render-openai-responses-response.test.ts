import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { convertOpenAIResponsesRequest } from '../../../src/providers/openai-responses/convert-openai-responses-request.js';
import { rememberResponsesEcho } from '../../../src/providers/openai-responses/openai-responses-echo.js';
import { renderOpenAIResponsesResponse } from '../../../src/providers/openai-responses/render-openai-responses-response.js';
import { canonicalRequest, READ_ARGS_A, READ_ARGS_B, REASONING_TEXT_TWO_TOOLS_RESPONSE } from '../openai-chat/stream-scenarios.js';

/**
 * The SDK's Response minus `output_text` (added by the SDK itself) and the two fields polar keeps
 * as open strings: `error.code` (Codex reads `context_length_exceeded`, not in the SDK union) and
 * the echoed `reasoning.effort`. tsc checks the assignment below.
 */
type SdkResponseShape = Omit<OpenAI.Responses.Response, 'output_text' | 'error' | 'reasoning'>;

const READ_TOOL = { type: 'function', name: 'read', description: null, parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: null };

describe('renderOpenAIResponsesResponse', () => {
  it('renders reasoning, message and function_call items in production order', () => {
    expect(renderOpenAIResponsesResponse(REASONING_TEXT_TWO_TOOLS_RESPONSE, canonicalRequest('openai-responses', false))).toStrictEqual({
      id: 'resp_abc',
      object: 'response',
      created_at: 1_700_000_000,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'qwen3-8b',
      output: [
        { id: 'rs_abc_0', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'Need both files.' }], encrypted_content: null },
        {
          id: 'msg_abc_1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Reading them.', annotations: [], logprobs: [] }],
        },
        { id: 'fc_abc_2', type: 'function_call', status: 'completed', call_id: 'call_a', name: 'read', arguments: READ_ARGS_A },
        { id: 'fc_abc_3', type: 'function_call', status: 'completed', call_id: 'call_b', name: 'read', arguments: READ_ARGS_B },
      ],
      previous_response_id: null,
      text: { format: { type: 'text' } },
      truncation: 'disabled',
      instructions: null,
      max_output_tokens: null,
      metadata: null,
      parallel_tool_calls: true,
      reasoning: null,
      temperature: null,
      tool_choice: 'auto',
      tools: [READ_TOOL],
      top_p: null,
      usage: {
        input_tokens: 42,
        input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
        output_tokens: 17,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 59,
      },
    });
  });

  it('is assignable to the SDK Response type', () => {
    const rendered: SdkResponseShape = renderOpenAIResponsesResponse(REASONING_TEXT_TWO_TOOLS_RESPONSE, canonicalRequest('openai-responses'));
    expect(rendered.object).toBe('response');
  });

  it('marks a length stop incomplete (response and the item being written)', () => {
    const response = { ...REASONING_TEXT_TWO_TOOLS_RESPONSE, content: [{ type: 'text' as const, text: 'Once upon' }], stopReason: 'length' as const };
    const rendered = renderOpenAIResponsesResponse(response, canonicalRequest('openai-responses', false));
    expect(rendered).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ status: 'incomplete' }] });
  });

  it('echoes the request settings remembered at parse time', () => {
    const { request, echo } = convertOpenAIResponsesRequest({
      model: 'client-model',
      input: 'x',
      instructions: 'Be brief.',
      tools: [{ type: 'function', name: 'read', strict: true, parameters: { type: 'object' } }],
      tool_choice: { type: 'function', name: 'read' },
      temperature: 0.2,
      metadata: { run: '7' },
    });
    rememberResponsesEcho(request, echo);
    expect(renderOpenAIResponsesResponse(REASONING_TEXT_TWO_TOOLS_RESPONSE, request)).toMatchObject({
      instructions: 'Be brief.',
      tools: [{ name: 'read', strict: true }],
      tool_choice: { type: 'function', name: 'read' },
      temperature: 0.2,
      metadata: { run: '7' },
    });
  });
});
