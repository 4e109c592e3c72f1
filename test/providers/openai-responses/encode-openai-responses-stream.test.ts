import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../src/providers/canonical.js';
import { OpenAIResponsesStreamEncoder } from '../../../src/providers/openai-responses/encode-openai-responses-stream.js';
import { renderOpenAIResponsesResponse } from '../../../src/providers/openai-responses/render-openai-responses-response.js';
import {
  canonicalRequest,
  parseSseFrames,
  REASONING_TEXT_TWO_TOOLS,
  REASONING_TEXT_TWO_TOOLS_RESPONSE,
  TRUNCATED_TEXT,
} from '../openai-chat/stream-scenarios.js';

type Frame = { event?: string; data: Record<string, unknown> };

function encodeAll(events: StreamEvent[]): { outputs: string[]; frames: Frame[] } {
  const encoder = new OpenAIResponsesStreamEncoder(canonicalRequest('openai-responses'));
  const outputs = events.map((event) => encoder.encode(event));
  return { outputs, frames: parseSseFrames(outputs.join('')) as Frame[] };
}

/** A frame without its sequence number, shortened to the fields a test names. */
const strip = ({ data }: Frame) => {
  const { sequence_number: _sequence, ...rest } = data;
  return rest;
};

describe('OpenAIResponsesStreamEncoder', () => {
  const { outputs, frames } = encodeAll(REASONING_TEXT_TWO_TOOLS);

  it('emits the Responses event sequence for reasoning, text and two parallel tool calls', () => {
    expect(frames.map((frame) => frame.event)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('numbers events from 0 and repeats the SSE event name as data.type', () => {
    expect(frames.map((frame) => frame.data['sequence_number'])).toStrictEqual(frames.map((_frame, index) => index));
    for (const frame of frames) expect(frame.data['type']).toBe(frame.event);
  });

  it('gives every delta and done event the ids and indexes the SDK needs', () => {
    expect(strip(frames[4] as Frame)).toStrictEqual({ type: 'response.reasoning_text.delta', item_id: 'rs_abc_0', output_index: 0, content_index: 0, delta: 'Need both ' });
    expect(strip(frames[6] as Frame)).toStrictEqual({ type: 'response.reasoning_text.done', item_id: 'rs_abc_0', output_index: 0, content_index: 0, text: 'Need both files.' });
    expect(strip(frames[10] as Frame)).toStrictEqual({
      type: 'response.content_part.added',
      item_id: 'msg_abc_1',
      output_index: 1,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    });
    expect(strip(frames[12] as Frame)).toStrictEqual({ type: 'response.output_text.delta', item_id: 'msg_abc_1', output_index: 1, content_index: 0, delta: 'them.', logprobs: [] });
    expect(strip(frames[16] as Frame)).toStrictEqual({
      type: 'response.output_item.added',
      output_index: 2,
      item: { id: 'fc_abc_2', type: 'function_call', status: 'in_progress', call_id: 'call_a', name: 'read', arguments: '' },
    });
    expect(strip(frames[20] as Frame)).toStrictEqual({ type: 'response.function_call_arguments.delta', item_id: 'fc_abc_3', output_index: 3, delta: '{"path":"b.txt"}' });
    expect(strip(frames[21] as Frame)).toStrictEqual({ type: 'response.function_call_arguments.done', item_id: 'fc_abc_2', output_index: 2, name: 'read', arguments: '{"path":"a.txt"}' });
  });

  it('starts with an in-progress response and ends with the same response the non-streaming path renders', () => {
    expect(frames[0]?.data['response']).toMatchObject({ id: 'resp_abc', status: 'in_progress', output: [] });
    const completed = frames.at(-1)?.data['response'];
    expect(completed).toStrictEqual(renderOpenAIResponsesResponse(REASONING_TEXT_TWO_TOOLS_RESPONSE, canonicalRequest('openai-responses')));
  });

  it('puts response.completed in the output of message-end only', () => {
    expect(outputs.at(-1)).toContain('event: response.completed\n');
    expect(outputs.slice(0, -1).join('')).not.toContain('response.completed');
  });

  it('ends a length stop with response.completed carrying status incomplete (Codex needs completed)', () => {
    const truncated = encodeAll(TRUNCATED_TEXT).frames;
    expect(truncated.at(-1)).toMatchObject({
      event: 'response.completed',
      data: { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ status: 'incomplete' }] } },
    });
    expect(truncated.filter((frame) => frame.event === 'response.output_item.done').at(-1)).toMatchObject({ data: { item: { status: 'incomplete' } } });
  });

  it.each([
    ['context-overflow', 'context_length_exceeded'],
    ['rate-limit', 'rate_limit_exceeded'],
    ['upstream-unavailable', 'server_error'],
  ] as const)('fails mid-stream (%s) with response.failed code %s and nothing afterwards', (kind, code) => {
    const encoder = new OpenAIResponsesStreamEncoder(canonicalRequest('openai-responses'));
    for (const event of REASONING_TEXT_TWO_TOOLS.slice(0, 4)) encoder.encode(event);
    const failed = parseSseFrames(encoder.error({ kind, message: 'it broke', status: 500 })) as Frame[];
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      event: 'response.failed',
      data: { response: { status: 'failed', error: { code, message: 'it broke' }, output: [{ type: 'reasoning' }, { type: 'message', status: 'incomplete' }] } },
    });
    expect(encoder.encode({ type: 'text-delta', text: 'more' })).toBe('');
    expect(encoder.error({ kind, message: 'again', status: 500 })).toBe('');
  });

  it('opens the response itself when an error or delta comes before message-start', () => {
    const failing = new OpenAIResponsesStreamEncoder(canonicalRequest('openai-responses'));
    expect((parseSseFrames(failing.error({ kind: 'upstream-timeout', message: 't', status: 504 })) as Frame[]).map((frame) => frame.event)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.failed',
    ]);
    const early = new OpenAIResponsesStreamEncoder(canonicalRequest('openai-responses'));
    const earlyFrames = parseSseFrames(early.encode({ type: 'text-delta', text: 'hi' })) as Frame[];
    expect(earlyFrames[0]).toMatchObject({ event: 'response.created', data: { response: { model: 'client-model' } } });
  });

  it('drops argument deltas for a call that never started', () => {
    const encoder = new OpenAIResponsesStreamEncoder(canonicalRequest('openai-responses'));
    encoder.encode(REASONING_TEXT_TWO_TOOLS[0] as StreamEvent);
    expect(encoder.encode({ type: 'tool-call-delta', index: 5, argumentsDelta: '{}' })).toBe('');
  });
});
