// The floor proxy and the fake upstream, in process: the proxy forwards bytes unchanged, JSON and SSE.
import { describe, expect, it } from 'vitest';
import { fakeChatCompletion, fakeChatCompletionChunks, fakeCompletionParts, fakeModelList, fakeSseFrames } from './fake-vllm-completion.js';
import { BYTES_PER_PROMPT_TOKEN, startFakeVllmUpstream } from './fake-vllm-upstream.js';
import { startPassthroughProxy } from './passthrough-proxy.js';
import { useProxiedUpstream } from './use-proxied-upstream.js';

describe('fake vLLM upstream behind the pass-through proxy', () => {
  const servers = useProxiedUpstream();

  const post = (base: string, body: unknown): Promise<Response> =>
    fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it.each([
    { name: 'direct', base: () => servers.upstream.url },
    { name: 'through the proxy', base: () => servers.proxy.url },
  ])('$name: JSON, SSE and /v1/models answer the canned bodies', async ({ base }) => {
    // One prompt token id per BYTES_PER_PROMPT_TOKEN request bytes, like a real server's answer.
    const request = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(4000) }], stream: false };
    const partsFor = (body: unknown) => fakeCompletionParts(Math.round(JSON.stringify(body).length / BYTES_PER_PROMPT_TOKEN));
    const json = await post(base(), request);
    expect(json.status).toBe(200);
    expect(await json.json()).toEqual(fakeChatCompletion(partsFor(request)));

    const streamed = { ...request, stream: true };
    const sse = await post(base(), streamed);
    expect(sse.headers.get('content-type')).toContain('text/event-stream');
    expect(Buffer.from(await sse.arrayBuffer())).toEqual(Buffer.concat(fakeSseFrames(fakeChatCompletionChunks(partsFor(streamed)))));

    const anthropic = await fetch(`${base()}/v1/messages?beta=true`, { method: 'POST', body: JSON.stringify({ ...request, stream: true }) });
    const events = await anthropic.text();
    expect(events.startsWith('event: message_start\n')).toBe(true);
    expect(events.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);

    const models = await fetch(`${base()}/v1/models`);
    expect(await models.json()).toEqual(fakeModelList());
  });

  it.each([
    { name: 'unknown path', path: '/v1/completions', body: '{}', status: 404 },
    { name: 'invalid JSON', path: '/v1/chat/completions', body: '{', status: 400 },
  ])('forwards the upstream error for $name', async ({ path, body, status }) => {
    const response = await fetch(`${servers.proxy.url}${path}`, { method: 'POST', body });
    expect(response.status).toBe(status);
    await response.arrayBuffer();
  });

  it('with a delay, answers JSON after it and spreads the stream frames over it', async () => {
    const slow = await startFakeVllmUpstream(0, 300);
    try {
      const started = performance.now();
      await (await post(slow.url, { model: 'm', messages: [], stream: false })).json();
      expect(performance.now() - started).toBeGreaterThanOrEqual(295);
      const streamStarted = performance.now();
      const response = await post(slow.url, { model: 'm', messages: [], stream: true });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      const firstFrameMs = performance.now() - streamStarted;
      while (!(await reader.read()).done);
      const allMs = performance.now() - streamStarted;
      expect(firstFrameMs).toBeLessThan(150);
      expect(allMs).toBeGreaterThanOrEqual(295);
    } finally {
      await slow.close();
    }
  });

  it('answers 502 when the upstream is gone', async () => {
    const lonely = await startPassthroughProxy('http://127.0.0.1:1');
    try {
      const response = await post(lonely.url, { stream: false });
      expect(response.status).toBe(502);
      expect(await response.text()).toContain('passthrough proxy:');
    } finally {
      await lonely.close();
    }
  });
});
