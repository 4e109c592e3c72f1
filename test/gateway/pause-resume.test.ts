// Pause and resume of generation through the real gateway, driven by the official SDKs against the
// simulator: while paused nothing reaches the upstream, held calls finish after the resume, and every
// call records the policy version it was sampled with.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatewayStack, startGatewayStack } from '../helpers/gateway-stack.js';
import { until } from '../helpers/until.js';

const stacks: GatewayStack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

describe('generation pause / resume', () => {
  it('drains the call upstream, holds the next one off the upstream, and releases it with the new version', async () => {
    const s = await startGatewayStack({ sim: { latency: { firstTokenMs: 400 } }, gateway: { policyVersion: 3 } });
    stacks.push(s);
    const sim = s.sim!;
    const openai = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
    const other = s.newKey();
    const anthropic = new Anthropic({ baseURL: s.url, apiKey: other.key, maxRetries: 0 });

    const first = openai.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
    await until(() => sim.stats.inFlight === 1, 'the first call to reach the upstream');
    let pauseResolved = false;
    const pause = s.gateway.generation.pause({ drainTimeoutMs: 10_000 }).then((result) => {
      pauseResolved = true;
      return result;
    });
    const second = anthropic.messages.create({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'hello' }] });
    await until(() => s.gateway.generation.state().held === 1, 'the second call to be held');
    expect(pauseResolved).toBe(false);
    expect(s.gateway.generation.state()).toMatchObject({ paused: true, inFlight: 1, held: 1, policyVersion: 3 });

    await first;
    expect(await pause).toEqual({ drained: true, inFlight: 0 });
    // Paused and drained: nothing is upstream, and the held call has not been sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sim.stats.requests).toBe(1);
    expect(sim.stats.inFlight).toBe(0);

    s.gateway.generation.resume({ policyVersion: 4 });
    const answer = await second;
    expect(answer.content.some((block) => block.type === 'text')).toBe(true);
    expect(sim.stats.requests).toBe(2);
    expect(s.gateway.generation.state()).toMatchObject({ paused: false, inFlight: 0, held: 0, policyVersion: 4 });

    const [a] = s.store.calls.listBySession(s.sessionId);
    const [b] = s.store.calls.listBySession(other.id);
    expect(a).toMatchObject({ status: 'ok', policyVersion: 3 });
    expect(b).toMatchObject({ status: 'ok', policyVersion: 4 });
  });

  it('a held call whose client gives up is recorded as client_aborted and never sent', async () => {
    const s = await startGatewayStack({});
    stacks.push(s);
    await s.gateway.generation.pause();
    const abort = new AbortController();
    const openai = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
    const call = openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, { signal: abort.signal });
    await until(() => s.gateway.generation.state().held === 1, 'the call to be held');
    abort.abort();
    await expect(call).rejects.toThrow();
    await until(() => s.store.calls.listBySession(s.sessionId).length === 1, 'the aborted call to be recorded');
    const [stored] = s.store.calls.listBySession(s.sessionId);
    expect(stored).toMatchObject({ status: 'client_aborted' });
    expect(stored!.policyVersion).toBeUndefined();
    expect(s.sim!.stats.requests).toBe(0);
    expect(s.gateway.generation.state().held).toBe(0);
  });
});
