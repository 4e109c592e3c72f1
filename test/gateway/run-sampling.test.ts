// Run-owned sampling, model identity and non-streaming capture through the gateway, driven by the
// official OpenAI SDK against the real simulator; every assertion reads what the store committed.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../src/config/sampling-policy.js';
import type { Policy } from '../../src/sim/policy.js';
import { type GatewayStack, type StackOptions, startGatewayStack } from '../helpers/gateway-stack.js';

const stacks: GatewayStack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

async function stack(options: StackOptions): Promise<GatewayStack> {
  const started = await startGatewayStack(options);
  stacks.push(started);
  return started;
}

const thinkAndCall: Policy = (request) =>
  request.messages.some((message) => message.role === 'tool')
    ? { reasoning: 'Done.', content: 'It is noon.' }
    : { reasoning: 'Use the tool for this.', toolCalls: [{ name: 'get_time', arguments: { city: 'Paris' } }] };
const tools = [{ type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

function client(s: GatewayStack): OpenAI {
  return new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
}

describe('run-owned sampling', () => {
  it('the harness asks temperature 0.2; the stored upstream body carries the run 1.0; both are stored', async () => {
    const s = await stack({ policy: thinkAndCall, gateway: { sampling: DEFAULT_ROLLOUT_SAMPLING } });
    await client(s).chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }], tools, temperature: 0.2, top_p: 0.5, seed: 3 });
    await client(s).chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }], tools, temperature: 0.2 }).finalChatCompletion();
    const calls = s.store.calls.listBySession(s.sessionId, { withRaw: true });
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.status).toBe('ok');
      const sent = JSON.parse(call.raw.upstreamRequest!.toString('utf8')) as Record<string, unknown>;
      expect(sent).toMatchObject({ temperature: 1, top_p: 1, top_k: -1, min_p: 0 });
      expect(sent).not.toHaveProperty('seed');
      expect(call.sentSampling).toEqual({ temperature: 1, top_p: 1, top_k: -1, min_p: 0 });
      expect(call.requestedSampling?.temperature).toBe(0.2);
      expect(call.responseModel).toBe('polar-sim-qwen3');
      expect(call.upstreamModel).toBe('polar-sim-qwen3');
    }
    expect(calls[0]!.requestedSampling).toEqual({ temperature: 0.2, top_p: 0.5, seed: 3 });
  });

  it('one gateway, two runs: each session\'s calls go upstream with its own run\'s sampling and max-tokens cap', async () => {
    let other = -1;
    const s = await stack({
      policy: thinkAndCall,
      gateway: {
        sampling: DEFAULT_ROLLOUT_SAMPLING,
        // What a session scheduler answers: the settings of the run the session belongs to.
        sessionSettings: (id) => (id === other ? { sampling: { mode: 'run', temperature: 0.6, topP: 0.95, topK: -1, minP: 0 }, maxTokensCap: 64 } : undefined),
      },
    });
    const second = s.newKey();
    other = second.id;
    const body = { model: 'gpt-x', messages: [{ role: 'user' as const, content: 'time?' }], temperature: 0.2, max_tokens: 500 };
    await client(s).chat.completions.create(body);
    await new OpenAI({ baseURL: `${s.url}/v1`, apiKey: second.key, maxRetries: 0 }).chat.completions.create(body);
    const sent = (id: number) => JSON.parse(s.store.calls.listBySession(id, { withRaw: true })[0]!.raw.upstreamRequest!.toString('utf8')) as Record<string, unknown>;
    expect(sent(s.sessionId)).toMatchObject({ temperature: 1, top_p: 1, max_tokens: 500 });
    expect(sent(second.id)).toMatchObject({ temperature: 0.6, top_p: 0.95, max_tokens: 64 });
  });

  it('harness sampling passes the client values through', async () => {
    const s = await stack({ policy: thinkAndCall, gateway: { sampling: { mode: 'harness' } } });
    await client(s).chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }], temperature: 0.2 });
    const [call] = s.store.calls.listBySession(s.sessionId, { withRaw: true });
    expect(JSON.parse(call!.raw.upstreamRequest!.toString('utf8'))).toMatchObject({ temperature: 0.2 });
    expect(call!.sentSampling).toEqual({ temperature: 0.2 });
  });
});

describe('model identity', () => {
  it('an answer from another model is stored as model_mismatch and still answered', async () => {
    const s = await stack({ policy: thinkAndCall, sim: { answerModel: 'misrouted' } });
    const answer = await client(s).chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }] });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    await client(s).chat.completions.stream({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }] }).finalChatCompletion();
    const calls = s.store.calls.listBySession(s.sessionId);
    expect(calls.map((call) => call.status)).toEqual(['model_mismatch', 'model_mismatch']);
    expect(calls[0]).toMatchObject({ upstreamModel: 'polar-sim-qwen3', responseModel: 'misrouted' });
    expect(calls[0]!.error).toContain('answered as "misrouted"');
  });

  it('several served models and none named: the call fails with the list, nothing is sampled', async () => {
    const s = await stack({ policy: thinkAndCall, sim: { servedModelNames: ['a', 'b'] } });
    const error = await client(s).chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('serves 2 models (a, b) and none was named');
    expect(s.sim!.stats.requests).toBe(0);
    expect(s.store.calls.listBySession(s.sessionId)[0]?.status).toBe('upstream_error');
  });

  it('the named model is sent', async () => {
    const s = await stack({ policy: thinkAndCall, sim: { servedModelNames: ['a', 'b'] }, gateway: { upstreamModel: 'b' } });
    await client(s).chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }] });
    expect(s.store.calls.listBySession(s.sessionId)[0]).toMatchObject({ status: 'ok', upstreamModel: 'b', responseModel: 'b' });
  });
});

describe('non-streaming capture for vLLM 0.10.2–~0.12', () => {
  const ask = async (s: GatewayStack) => {
    const openai = client(s);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'time in Paris?' }];
    const first = await openai.chat.completions.stream({ model: 'gpt-x', messages, tools }).finalChatCompletion();
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('get_time');
    messages.push(first.choices[0]!.message as OpenAI.Chat.ChatCompletionMessageParam, { role: 'tool', tool_call_id: call.id, content: 'noon' });
    const second = await openai.chat.completions.stream({ model: 'gpt-x', messages, tools }).finalChatCompletion();
    expect(second.choices[0]!.message.content).toContain('It is noon.');
    return s.store.calls.listBySession(s.sessionId);
  };

  it('streaming upstream on vLLM 0.11 loses ids (token_mismatch); non-streaming upstream captures them while the client streams', async () => {
    const broken = await ask(await stack({ policy: thinkAndCall, sim: { vllmCompat: '0.11.0' } }));
    expect(broken.map((call) => call.status)).toEqual(['token_mismatch', 'token_mismatch']);
    const fixed = await ask(await stack({ policy: thinkAndCall, sim: { vllmCompat: '0.11.0' }, gateway: { nonStreamingUpstream: true } }));
    expect(fixed.map((call) => call.status)).toEqual(['ok', 'ok']);
    for (const call of fixed) {
      expect(call.stream).toBe(true);
      expect(call.capture.tokenIds!.length).toBe(call.capture.completionTokens);
      expect(call.capture.logprobs!.length).toBe(call.capture.tokenIds!.length);
    }
  });

  it('a profile whose streamed ids are dropped switches the fallback on, and thinking is replayed as reasoning_content', async () => {
    const s = await stack({
      policy: thinkAndCall,
      sim: { vllmCompat: '0.11.0' },
      gateway: { profile: { streamTokenIds: false, reasoningField: 'reasoning_content' } as never },
    });
    const calls = await ask(s);
    expect(calls.map((call) => call.status)).toEqual(['ok', 'ok']);
    const second = s.store.calls.get(calls[1]!.id, { withRaw: true })!;
    const replayed = (JSON.parse(second.raw.upstreamRequest!.toString('utf8')) as { messages: Record<string, unknown>[] }).messages.find((m) => m['role'] === 'assistant');
    expect(replayed).toMatchObject({ reasoning_content: expect.stringContaining('Use the tool for this.') });
    expect(replayed).not.toHaveProperty('reasoning');
  });
});

describe('injected upstream failures reach the store as infrastructure statuses', () => {
  const ask = (s: GatewayStack) =>
    client(s)
      .chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'time?' }] })
      .then(() => 'answered', (error: unknown) => (error instanceof OpenAI.APIError ? error.status : 'failed'));

  it('fail-after → upstream_error (5xx); stall past the gateway timeout → upstream_timeout; restart → upstream_unavailable', async () => {
    const failing = await stack({ policy: thinkAndCall, sim: { failAfter: 1 } });
    expect([await ask(failing), await ask(failing)]).toEqual(['answered', 500]); // the upstream's own status is relayed
    expect(failing.store.calls.listBySession(failing.sessionId).map((call) => call.status)).toEqual(['ok', 'upstream_error']);

    const stalling = await stack({ policy: thinkAndCall, sim: { stallAfter: 1 }, gateway: { upstreamTimeoutMs: 300 } });
    expect([await ask(stalling), await ask(stalling)]).toEqual(['answered', 504]);
    expect(stalling.store.calls.listBySession(stalling.sessionId).map((call) => call.status)).toEqual(['ok', 'upstream_timeout']);

    const restarting = await stack({ policy: thinkAndCall, sim: { restartAfter: 1, restartMs: 5000 } });
    expect(await ask(restarting)).toBe('answered');
    expect(await ask(restarting)).toBe(503);
    expect(await ask(restarting)).toBe(503);
    expect(restarting.store.calls.listBySession(restarting.sessionId).map((call) => call.status)).toEqual(['ok', 'upstream_unavailable', 'upstream_unavailable']);
  });
});
