import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../src/providers/canonical.js';
import { buildUpstreamRequest } from '../../src/upstream/build-upstream-request.js';

const request = (messages: CanonicalRequest['messages'], extra: Partial<CanonicalRequest> = {}): CanonicalRequest => ({
  protocol: 'openai-chat',
  model: 'client-model',
  messages,
  tools: [],
  sampling: {},
  stream: false,
  ...extra,
});

describe('buildUpstreamRequest', () => {
  it('always asks for token ids and logprobs, and usage when streaming', () => {
    const body = buildUpstreamRequest(request([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], { stream: true, sampling: { maxTokens: 32000 } }), { model: 'served', maxTokensCap: 4096 });
    expect(body).toMatchObject({ model: 'served', stream: true, logprobs: true, return_token_ids: true, stream_options: { include_usage: true }, max_tokens: 4096 });
    expect(body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('puts the stream fields last, so a streaming and a non-streaming call of one conversation differ only at the end', () => {
    const tools = [{ name: 'shell', description: 'Runs a command. '.repeat(50), parameters: { type: 'object' } }];
    const conversation = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Fix the failing test. '.repeat(50) }] }];
    const [json, sse] = [false, true].map((stream) => JSON.stringify(buildUpstreamRequest(request(conversation, { stream, tools }), { model: 'served' })));
    let shared = 0;
    while (json![shared] === sse![shared]) shared++;
    // The store diffs a call against the previous one of its lineage: only `"stream":…}` may differ.
    expect(json!.length - shared).toBeLessThan(20);
    expect(sse!.slice(shared)).toMatch(/^true,"stream_options":\{"include_usage":true\}\}$/);
  });

  it('merges the leading system messages into one system turn; one inside the conversation stays in place as a user turn', () => {
    const body = buildUpstreamRequest(
      request([
        { role: 'system', content: 'A' },
        { role: 'system', content: 'A2' },
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'system', content: 'B' },
      ]),
      { model: 'm' },
    );
    // A reminder later in the conversation must not rewrite the system prompt the model already saw.
    expect(body.messages).toEqual([{ role: 'system', content: 'A\n\nA2' }, { role: 'user', content: 'q' }, { role: 'user', content: 'B' }]);
  });

  it.each([
    ['whitespace-only text next to a tool call is sent as no content', '\n\n', null],
    ['visible text next to a tool call is kept', 'Let me look.', 'Let me look.'],
  ])('%s', (_case, text, content) => {
    const body = buildUpstreamRequest(
      request([
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'reasoning', text: 'think' }, { type: 'text', text }, { type: 'tool-call', id: 'c1', name: 'bash', arguments: '{"command":"ls"}' }] },
        { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'out' }] },
      ]),
      { model: 'm' },
    );
    expect(body.messages[1]).toEqual({ role: 'assistant', content, reasoning: 'think', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }] });
    expect(body.messages[2]).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'out' });
  });

  it('keeps a whitespace-only answer without tool calls as it is', () => {
    const body = buildUpstreamRequest(request([{ role: 'assistant', content: [{ type: 'text', text: '\n' }] }]), { model: 'm' });
    expect(body.messages).toEqual([{ role: 'assistant', content: '\n' }]);
  });
});
