// Long prompts: a stream's first chunk carries thousands of prompt ids, which the gateway splits off and
// parses after writing the chunk's events (upstream/split-prompt-ids). The capture must be exactly what a
// JSON answer captures, and Anthropic's message_start must still count the prompt.
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

describe('prompt ids split off a stream first chunk', () => {
  it('captures the same prompt ids streamed as answered whole, for OpenAI and Anthropic clients', async () => {
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

    const [whole, split, viaAnthropic] = s.store.calls.listBySession(s.sessionId);
    expect([whole?.status, split?.status, viaAnthropic?.status]).toEqual(['ok', 'ok', 'ok']);
    const promptIds = whole!.capture.promptTokenIds!;
    expect(promptIds.length).toBeGreaterThan(2000);
    expect(split!.capture.promptTokenIds).toEqual(promptIds);
    expect(split!.capture.promptTokens).toBe(promptIds.length);
    // Anthropic's opening frame reports the prompt's size, so its ids are parsed before it is written.
    expect(viaAnthropic!.capture.promptTokenIds).toEqual(promptIds);
    expect(startInputTokens).toBe(promptIds.length);
  });

  it('records upstream_error when the split-off ids turn out malformed after the first frame was sent', async () => {
    // `[1,2,,3...]` makes the first chunk invalid JSON; only the ids part is, so the split takes it.
    const ids = `[1,2,,${Array.from({ length: 2000 }, (_, i) => i).join(',')}]`;
    const chunk = (body: string): string => `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"test-model",${body}}\n\n`;
    const upstream = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk(`"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null,"token_ids":[5]}],"prompt_token_ids":${ids}`));
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
      expect(text).toContain('malformed prompt_token_ids');
      expect(text).not.toContain('[DONE]');
      const [call] = s.store.calls.listBySession(s.sessionId);
      expect(call).toMatchObject({ status: 'upstream_error' });
      expect(call!.error).toContain('malformed prompt_token_ids');
      expect(call!.capture.promptTokenIds).toBeNull();
    } finally {
      upstream.close();
    }
  });
});
