// Long prompts: an answer (or a stream's first chunk) carries thousands of prompt ids, which the gateway
// splits off as JSON text and leaves to the store's commit worker to parse (upstream/split-prompt-ids,
// capture/resolve-prompt-ids-json). The stored capture must be exactly what parsing the whole answer gives
// (an Anthropic stream, whose message_start counts the prompt, is parsed whole: the reference).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayStack, startGatewayStack } from '../helpers/gateway-stack.js';

const stacks: GatewayStack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

/** ~3,000 prompt tokens: well past the 4,096 characters of ids below which nothing is split. */
const LONG = Array.from({ length: 600 }, (_, i) => `line ${i}: the tests in module_${i % 17}.py pass`).join('\n');

describe('prompt ids split off an answer', () => {
  it('stores the same prompt ids, JSON or streamed, as an answer parsed whole', async () => {
    const s = await startGatewayStack({ policy: () => ({ content: 'Done.' }) });
    stacks.push(s);
    const openai = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: LONG }];
    await openai.chat.completions.create({ model: 'm', messages });
    let streamed = '';
    for await (const chunk of await openai.chat.completions.create({ model: 'm', messages, stream: true })) streamed += chunk.choices[0]?.delta?.content ?? '';
    expect(streamed.trim()).toBe('Done.');

    const anthropic = new Anthropic({ baseURL: s.url, apiKey: s.key, maxRetries: 0 });
    let startInputTokens = -1;
    const stream = anthropic.messages.stream({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: LONG }] });
    stream.on('streamEvent', (event) => {
      if (event.type === 'message_start') startInputTokens = event.message.usage.input_tokens;
    });
    await stream.finalMessage();

    const [json, streamedCall, whole] = s.store.calls.listBySession(s.sessionId);
    expect([json?.status, streamedCall?.status, whole?.status]).toEqual(['ok', 'ok', 'ok']);
    // Anthropic's opening frame reports the prompt's size, so its ids are parsed whole before it is written.
    const promptIds = whole!.capture.promptTokenIds!;
    expect(promptIds.length).toBeGreaterThan(2000);
    expect(startInputTokens).toBe(promptIds.length);
    for (const call of [json!, streamedCall!]) {
      expect(call.capture.promptTokenIds).toEqual(promptIds);
      expect(call.capture.promptTokens).toBe(promptIds.length);
      expect(call.capture).not.toHaveProperty('promptTokenIdsJson');
    }
  });

  it('answers the client whole and stores token_mismatch when split-off ids turn out malformed', async () => {
    // `[1,2,,3...]` makes the first chunk invalid JSON; only the ids part is, so the split takes it.
    const ids = `[1,2,,${Array.from({ length: 2000 }, (_, i) => i).join(',')}]`;
    const chunk = (body: string): string => `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"test-model",${body}}\n\n`;
    const upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk(`"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"logprobs":{"content":[{"token":"Hi","logprob":-0.25,"bytes":[72,105],"top_logprobs":[]}]},"finish_reason":null,"token_ids":[5]}],"prompt_token_ids":${ids}`));
        res.end(`${chunk('"choices":[{"index":0,"delta":{},"finish_reason":"stop","token_ids":[]}]')}data: [DONE]\n\n`);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const s = await startGatewayStack({ upstreamUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` });
    stacks.push(s);
    try {
      const res = await fetch(`${s.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await res.text();
      expect(text).toContain('"content":"Hi"');
      expect(text).toContain('data: [DONE]');
      const [call] = s.store.calls.listBySession(s.sessionId);
      // As for any capture that disagrees with itself: the answer was valid, only the capture is untrusted.
      expect(call).toMatchObject({ status: 'token_mismatch', httpStatus: 200 });
      expect(call!.error).toContain('not a JSON array of numbers');
      expect(call!.capture.promptTokenIds).toBeNull();
    } finally {
      upstream.close();
    }
  });
});
