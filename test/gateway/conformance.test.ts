// One conformance table for every protocol: each case gets a correct answer or the client's own
// error shape, the gateway stays up, and nothing bad is stored as a trainable call.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Policy } from '../../src/sim/policy.js';
import { type GatewayStack, startGatewayStack } from '../helpers/gateway-stack.js';
import { DRIVERS, type Driver, sendRaw } from '../helpers/protocol-drivers.js';

const UNICODE = 'héllo wörld — 世界 🎉 "quotes" \\ back\\slash\nnew line';

/** The scenario is named in the last user message. */
const scenarioPolicy: Policy = (request) => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { content: 'Got the tool result: sunny.' };
  const text = JSON.stringify(request.messages);
  if (text.includes('SCENARIO_TOOL')) return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] };
  if (text.includes('SCENARIO_PARALLEL')) {
    return { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Oslo' } }] };
  }
  if (text.includes('SCENARIO_REASONING')) return { reasoning: 'Let me think about this carefully.', content: 'Forty-two.' };
  if (text.includes('SCENARIO_UNICODE')) return { content: UNICODE };
  if (text.includes('SCENARIO_EMPTY')) return { content: '' };
  if (text.includes('SCENARIO_500')) return { error: { status: 500, message: 'engine crashed' } };
  if (text.includes('SCENARIO_LONG')) return { content: 'word '.repeat(400) };
  return { content: 'Hello.' };
};

async function health(stack: GatewayStack): Promise<number> {
  return (await fetch(`${stack.url}/health`)).status;
}

function lastCall(stack: GatewayStack, sessionId: number) {
  return stack.store.calls.listBySession(sessionId).at(-1);
}

describe.each(DRIVERS.map((driver) => [driver.protocol, driver] as [string, Driver]))('%s conformance', (_name, driver) => {
  let stack: GatewayStack;
  let slow: GatewayStack;
  let oldVllm: GatewayStack;
  let tiny: GatewayStack;
  let down: GatewayStack;
  let stalled: GatewayStack;

  beforeAll(async () => {
    stack = await startGatewayStack({ policy: scenarioPolicy, gateway: { maxBodyBytes: 64 * 1024 } });
    slow = await startGatewayStack({ policy: scenarioPolicy, sim: { latency: { perTokenMs: 20 } } });
    oldVllm = await startGatewayStack({ policy: scenarioPolicy, sim: { returnTokenIds: false } });
    tiny = await startGatewayStack({ policy: scenarioPolicy, sim: { maxModelLen: 256 } });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    down = await startGatewayStack({ upstreamUrl: `http://127.0.0.1:${port}/v1` });
    stalled = await startGatewayStack({ policy: scenarioPolicy, sim: { latency: { firstTokenMs: 3_000 } }, gateway: { upstreamTimeoutMs: 300 } });
  });
  afterAll(async () => {
    await Promise.all([stack, slow, oldVllm, tiny, down, stalled].map((item) => item?.close()));
  });

  for (const stream of [false, true]) {
    const mode = stream ? 'stream' : 'json';
    it.each([
      ['text', 'SCENARIO_TEXT', false, { text: 'Hello.', toolCalls: [] }],
      ['tool call', 'SCENARIO_TOOL', false, { text: '', toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }] }],
      ['tool result', 'SCENARIO_TOOL', true, { text: 'Got the tool result: sunny.', toolCalls: [] }],
      ['parallel tool calls', 'SCENARIO_PARALLEL', false, { text: '', toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }, { name: 'get_weather', args: { city: 'Oslo' } }] }],
      ['unicode', 'SCENARIO_UNICODE', false, { text: UNICODE, toolCalls: [] }],
      ['empty output', 'SCENARIO_EMPTY', false, { text: '', toolCalls: [] }],
    ])(`${mode}: %s`, async (_case, prompt, withToolResult, expected) => {
      const { key, id } = stack.newKey();
      const answer = await driver.ask(stack.url, key, { prompt, stream, withToolResult });
      // vLLM's qwen3 reasoning parser keeps the "\n\n" that follows </think> in `content`.
      expect({ text: answer.text.replace(/^\n\n/, ''), toolCalls: answer.toolCalls }).toEqual(expected);
      const call = lastCall(stack, id);
      expect(call).toMatchObject({ status: 'ok', protocol: driver.protocol, stream });
      expect(call!.capture.tokenIds!.length).toBe(call!.capture.logprobs!.length);
    });

    it(`${mode}: reasoning reaches the client`, async () => {
      const { key } = stack.newKey();
      const answer = await driver.ask(stack.url, key, { prompt: 'SCENARIO_REASONING', stream });
      expect(answer.text.replace(/^\n\n/, '')).toBe('Forty-two.');
      // vLLM's qwen3 reasoning parser returns the text between <think> and </think>, newlines included.
      expect(answer.reasoning.trim()).toBe('Let me think about this carefully.');
    });

    it(`${mode}: upstream 500 comes back in the client's error shape`, async () => {
      const { key, id } = stack.newKey();
      const response = await sendRaw(stack.url, driver.raw(key, 'SCENARIO_500', stream));
      expect(response.status).toBe(500);
      expect(driver.isErrorShape(response.status, response.body)).toBe(true);
      expect(lastCall(stack, id)).toMatchObject({ status: 'upstream_error' });
      expect(await health(stack)).toBe(200);
    });

    it(`${mode}: upstream down → 503 in shape, recorded as upstream_unavailable`, async () => {
      const { key, id } = down.newKey();
      const response = await sendRaw(down.url, driver.raw(key, 'hi', stream));
      expect(response.status).toBe(503);
      expect(driver.isErrorShape(response.status, response.body)).toBe(true);
      expect(lastCall(down, id)).toMatchObject({ status: 'upstream_unavailable' });
    });

    it(`${mode}: an upstream that stalls past the timeout → 504 in shape, recorded as upstream_timeout`, async () => {
      const { key, id } = stalled.newKey();
      const response = await sendRaw(stalled.url, driver.raw(key, 'hi', stream));
      if (response.status === 200) {
        // The stream had started (the protocol's opening frames went out): the timeout arrives in band.
        expect(stream).toBe(true);
        expect(response.text).toContain('stalled mid-stream');
      } else {
        expect(response.status).toBe(504);
        expect(driver.isErrorShape(response.status, response.body)).toBe(true);
      }
      expect(lastCall(stalled, id)).toMatchObject({ status: 'upstream_timeout' });
      expect(await health(stalled)).toBe(200);
    });

    it(`${mode}: an upstream without token ids is refused, never re-tokenized`, async () => {
      const { key, id } = oldVllm.newKey();
      const response = await sendRaw(oldVllm.url, driver.raw(key, 'hi', stream));
      expect(response.status).toBe(502);
      expect(driver.isErrorShape(response.status, response.body)).toBe(true);
      expect(response.text).toContain('vLLM >= 0.10.2');
      const call = lastCall(oldVllm, id);
      expect(call).toMatchObject({ status: 'no_token_ids' });
      expect(call!.capture.tokenIds).toBeNull();
    });

    it(`${mode}: context overflow → 400 in shape, recorded as context_overflow`, async () => {
      const { key, id } = tiny.newKey();
      const response = await sendRaw(tiny.url, driver.raw(key, 'long '.repeat(400), stream));
      expect(response.status).toBe(400);
      expect(driver.isErrorShape(response.status, response.body)).toBe(true);
      expect(response.text).toContain('prompt is too long');
      expect(lastCall(tiny, id)).toMatchObject({ status: 'context_overflow' });
    });
  }

  it('client abort mid-stream cancels the upstream request and is kept as client_aborted', async () => {
    const { key, id } = slow.newKey();
    const before = slow.sim!.stats.disconnects;
    const controller = new AbortController();
    const request = driver.raw(key, 'SCENARIO_LONG', true);
    const response = await fetch(`${slow.url}${request.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: JSON.stringify(request.body),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect.poll(() => lastCall(slow, id)?.status, { timeout: 5000 }).toBe('client_aborted');
    await expect.poll(() => slow.sim!.stats.disconnects, { timeout: 5000 }).toBeGreaterThan(before);
    const call = lastCall(slow, id)!;
    expect(call.capture.tokenIds!.length).toBeLessThan(400);
    expect(await health(slow)).toBe(200);
  });

  it('malformed JSON → 400 in shape, recorded as invalid_request', async () => {
    const { key, id } = stack.newKey();
    const response = await sendRaw(stack.url, driver.raw(key, 'x', false), '{"model": "m", "messages": [');
    expect(response.status).toBe(400);
    expect(driver.isErrorShape(response.status, response.body)).toBe(true);
    expect(lastCall(stack, id)).toMatchObject({ status: 'invalid_request' });
  });

  it('oversized body → 413 in shape, nothing stored', async () => {
    const { key, id } = stack.newKey();
    const response = await sendRaw(stack.url, driver.raw(key, 'x'.repeat(100 * 1024), false));
    expect(response.status).toBe(413);
    expect(driver.isErrorShape(response.status, response.body)).toBe(true);
    expect(stack.store.calls.listBySession(id)).toHaveLength(0);
    expect(await health(stack)).toBe(200);
  });

  it('unknown key → 401 in shape, nothing stored', async () => {
    const before = stack.store.stats().calls;
    const response = await sendRaw(stack.url, driver.raw('polar-not-a-real-key', 'hi', false));
    expect(response.status).toBe(401);
    expect(driver.isErrorShape(response.status, response.body)).toBe(true);
    expect(stack.store.stats().calls).toBe(before);
  });
});
