// An aborted call is known by what polar did: polar asked the engine to abort (a pause in abort mode) while the
// call's answer was still incomplete. The simulator answers as vLLM does (a stream aborted after tool-call pieces
// ends with finish_reason tool_calls; one aborted before its first token has no finish chunk at all), and polar
// records every such call engine_aborted (the reported finish reason kept as evidence), never trainable, and
// answers the harness with the 503 of any aborted call: streamed and not, chat and token-in. The race: a call
// whose finish arrived before the abort went out is a normal call; one whose finish arrived after it is aborted.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { toTrajectoryCall } from '../../src/export/to-trajectory-call.js';
import { abortedByPolarMessage } from '../../src/gateway/engine-aborted-error.js';
import { InFlightCalls } from '../../src/gateway/in-flight-versions.js';
import { EngineGeneration } from '../../src/rollout/engine-generation.js';
import { GenerationController } from '../../src/rollout/generation-controller.js';
import { classifySessionFailure } from '../../src/rollout/classify-session-failure.js';
import type { Policy } from '../../src/sim/policy.js';
import { checkTrainable } from '../../src/trajectory/check-trainable.js';
import { EngineFleet } from '../../src/upstream/control/engine-fleet.js';
import { type GatewayStack, type StackOptions, startGatewayStack } from '../helpers/gateway-stack.js';
import { until } from '../helpers/until.js';

const COMMAND = 'grep -rn "def handle_request" src/ | head -n 40 && python -m pytest tests/test_server.py -x -q --maxfail=1 && echo the whole suite passed without a single failure';
const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const toolPolicy: Policy = () => ({ toolCalls: [{ name: 'bash', arguments: { command: COMMAND } }] });

const stacks: GatewayStack[] = [];
const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function start(options: StackOptions, fleetUrl?: string): Promise<{ s: GatewayStack; controller: GenerationController; openai: OpenAI }> {
  const s = await startGatewayStack(options);
  stacks.push(s);
  const gate = new EngineGeneration(0, undefined);
  gate.attach(s.gateway);
  const fleet = new EngineFleet([{ url: fleetUrl ?? s.sim!.url, engine: 'vllm' }]);
  const controller = new GenerationController({ gate, fleet: async () => fleet, emit: () => undefined, quietMs: 20 });
  return { s, controller, openai: new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 }) };
}

/** Streams a chat call with tools; counts the tool-call argument pieces the harness receives. */
function streamToolCall(openai: OpenAI, messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Run the tests.' }]): { pieces: () => number; done: Promise<unknown> } {
  let pieces = 0;
  const done = (async () => {
    const stream = await openai.chat.completions.create({ model: 'm', messages, tools, stream: true });
    for await (const chunk of stream) if (chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments) pieces += 1;
  })();
  return { pieces: () => pieces, done };
}

function expectAborted(s: GatewayStack, index: number, evidence: string | null): void {
  const stored = s.store.calls.listBySession(s.sessionId)[index]!;
  expect(stored).toMatchObject({ status: 'engine_aborted', error: abortedByPolarMessage(evidence) });
  expect(stored.capture.finishReason).toBe(evidence);
  expect(checkTrainable(toTrajectoryCall(stored))).toMatchObject({ trainable: false, detail: 'status' });
}

describe('an abort pause is known by what polar did, whatever the stream reports', () => {
  it('a streamed tool call aborted mid-arguments: vLLM reports tool_calls, polar records engine_aborted and the harness gets an error', async () => {
    const { s, controller, openai } = await start({ policy: toolPolicy, sim: { control: { devMode: true }, latency: { firstTokenMs: 5, perTokenMs: 15 } } });
    const call = streamToolCall(openai);
    await until(() => call.pieces() >= 4, 'tool-call pieces to stream');
    expect(await controller.pause({ mode: 'abort', drainTimeoutMs: 5_000 })).toMatchObject({ drained: true, inFlight: 0 });
    await expect(call.done).rejects.toThrow(/polar asked the inference engine to abort/);
    // The evidence: the simulator, as vLLM, ended the aborted stream with tool_calls.
    expectAborted(s, 0, 'tool_calls');
    const stored = s.store.calls.listBySession(s.sessionId)[0]!;
    expect(stored.capture.tokenIds!.length).toBeGreaterThan(4);
    const facts = { exitCode: 0, timedOut: false, agentStartedAt: 0, agentEndedAt: 1, oomKills: 0, calls: [{ seq: 0, status: stored.status, httpStatus: stored.httpStatus, startedAt: 0, latencyMs: 1 }] };
    expect(classifySessionFailure(facts)).toMatchObject({ status: 'infra_error', reason: 'engine_aborted', retryable: true });
    await controller.resume({});
  });

  it.each([true, false])('a chat call aborted before its first token (stream %s): engine_aborted, not an upstream error', async (stream) => {
    const { s, controller, openai } = await start({ policy: toolPolicy, sim: { control: { devMode: true }, latency: { firstTokenMs: 60_000, perTokenMs: 5 } } });
    const pending = stream ? streamToolCall(openai).done : openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Run the tests.' }], tools });
    const answered = pending.then(() => undefined, (error: unknown) => error);
    await until(() => s.sim!.stats.inFlight === 1, 'the call to reach the engine');
    await controller.pause({ mode: 'abort', drainTimeoutMs: 5_000 });
    // Streamed, the role chunk was relayed already: the error ends the stream; not streamed, a 503.
    expect(await answered).toMatchObject({ ...(stream ? {} : { status: 503 }), message: expect.stringContaining('polar asked the inference engine to abort') });
    // Streamed, vLLM sends no finish chunk (the evidence: none); not streamed, a JSON answer with finish abort.
    expectAborted(s, 0, stream ? null : 'abort');
    await controller.resume({});
  });

  it.each([true, false])('token-in (/v1/completions, stream %s): a call aborted before its first token is engine_aborted', async (stream) => {
    const { s, controller, openai } = await start({ policy: toolPolicy, sim: { control: { devMode: true }, latency: { firstTokenMs: 300, perTokenMs: 1 } }, gateway: { tokenIn: true } });
    // The first call opens the lineage (chat); the next one goes as token ids.
    const first = (await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Run the tests.' }], tools })).choices[0]!.message;
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Run the tests.' },
      { role: 'assistant', content: first.content, tool_calls: first.tool_calls! },
      { role: 'tool', tool_call_id: first.tool_calls![0]!.id, content: 'ok' },
    ];
    await s.sim!.engine.pause('keep');
    await s.sim!.engine.resume();
    const body = { model: 'm', messages, tools };
    const pending = stream ? streamToolCall(openai, messages).done : openai.chat.completions.create(body);
    const answered = pending.then(() => undefined, (error: unknown) => error);
    await until(() => s.gateway.generation.state().inFlight === 1 && s.sim!.engine.metrics().running + s.sim!.engine.metrics().waiting === 1, 'the token-in call to reach the engine');
    await controller.pause({ mode: 'abort', drainTimeoutMs: 5_000 });
    expect(await answered).toMatchObject({ status: 503 });
    const second = s.store.calls.listBySession(s.sessionId)[1]!;
    expect(second.mode).toBe('token_in');
    expectAborted(s, 1, stream ? null : 'abort');
    await controller.resume({});
  });
});

/** A vLLM-shaped upstream whose answers the test writes by hand (to place the finish before or after the abort). */
interface Scripted {
  url: string;
  /** The held chat response of the current call (once it arrived). */
  response: () => http.ServerResponse | undefined;
  pauses: number;
}

async function scriptedUpstream(): Promise<Scripted> {
  let held: http.ServerResponse | undefined;
  const state: Scripted = { url: '', response: () => held, pauses: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/pause')) {
        state.pauses += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"paused"}');
      } else if (req.url === '/resume') res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"resumed"}');
      else if (req.url === '/v1/chat/completions') held = res;
      else res.writeHead(404).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

const BASE = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'test-model' };
const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}): string => `data: ${JSON.stringify({ ...BASE, choices: [{ index: 0, logprobs: null, ...choice }], ...extra })}\n\n`;
const token = (text: string, id: number): string => chunk({ delta: { content: text }, logprobs: { content: [{ token: text, logprob: -0.5, bytes: null, top_logprobs: [] }] }, finish_reason: null, token_ids: [id] });

describe('the race between a finish and the abort', () => {
  it('a finish received before the abort went out is a normal call; a finish received after it is aborted', async () => {
    const upstream = await scriptedUpstream();
    const { s, controller, openai } = await start({ upstreamUrl: upstream.url, gateway: { upstreamModel: 'test-model' } }, upstream.url);
    let received = '';
    const read = async (): Promise<{ text: string; error?: unknown }> => {
      let text = '';
      try {
        const stream = await openai.chat.completions.create({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }], stream: true });
        for await (const part of stream) {
          text += part.choices[0]?.delta?.content ?? '';
          received = text;
        }
        return { text };
      } catch (error) {
        return { text, error };
      }
    };

    // 1. The finish arrives; only then does polar abort; the stream ends after: a normal, trainable call.
    const finishedFirst = read();
    const one = await until(() => upstream.response(), 'the first call upstream');
    one.writeHead(200, { 'content-type': 'text/event-stream' });
    one.write(chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }, { prompt_token_ids: [1, 2, 3] }));
    one.write(token('Hello', 10));
    one.write(chunk({ delta: { content: ' END' }, logprobs: { content: [{ token: ' END', logprob: -0.1, bytes: null, top_logprobs: [] }] }, finish_reason: 'stop', stop_reason: null, token_ids: [11] }));
    // The harness has the finish chunk's text: the relay has read the finish (the stream itself is still open).
    await until(() => received.endsWith(' END'), 'the finish chunk to be relayed');
    expect(s.gateway.generation.state().inFlight).toBe(1);
    await controller.pause({ mode: 'abort', drainTimeoutMs: 0 });
    expect(upstream.pauses).toBe(1);
    one.end('data: [DONE]\n\n');
    expect(await finishedFirst).toEqual({ text: 'Hello END' });
    expect(s.store.calls.listBySession(s.sessionId)[0]).toMatchObject({ status: 'ok' });
    await controller.resume({});

    // 2. Tokens arrive, polar aborts, then the engine reports a stop (it was in transit): aborted, never trained on.
    const cut = read();
    await until(() => upstream.response() !== one && upstream.response(), 'the second call upstream');
    const two = upstream.response()!;
    two.writeHead(200, { 'content-type': 'text/event-stream' });
    two.write(chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }, { prompt_token_ids: [1, 2, 3] }));
    two.write(token('Hello', 10));
    await until(() => s.gateway.generation.state().inFlight === 1, 'the call in flight');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await controller.pause({ mode: 'abort', drainTimeoutMs: 0 });
    two.end(`${chunk({ delta: { content: ' END' }, logprobs: { content: [{ token: ' END', logprob: -0.1, bytes: null, top_logprobs: [] }] }, finish_reason: 'stop', stop_reason: null, token_ids: [11] })}data: [DONE]\n\n`);
    expect((await cut).error).toMatchObject({ message: expect.stringContaining('polar asked the inference engine to abort') });
    expect(s.store.calls.listBySession(s.sessionId)[1]).toMatchObject({ status: 'engine_aborted', error: abortedByPolarMessage('stop') });
    await controller.resume({});
  });

  it('a non-streamed answer reporting tool_calls after polar aborted is engine_aborted', async () => {
    const upstream = await scriptedUpstream();
    const { s, controller, openai } = await start({ upstreamUrl: upstream.url, gateway: { upstreamModel: 'test-model' } }, upstream.url);
    const pending = openai.chat.completions.create({ model: 'test-model', messages: [{ role: 'user', content: 'hi' }] }).then(() => undefined, (error: unknown) => error);
    const held = await until(() => upstream.response(), 'the call upstream');
    await controller.pause({ mode: 'abort', drainTimeoutMs: 0 });
    const answer = {
      id: 'chatcmpl-2',
      object: 'chat.completion',
      created: 1,
      model: 'test-model',
      choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'bash', arguments: '{"command": "ls"}' } }] }, logprobs: { content: [{ token: 'x', logprob: -0.5, bytes: null, top_logprobs: [] }] }, finish_reason: 'tool_calls', stop_reason: null, token_ids: [7] }],
      usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      prompt_token_ids: [1, 2, 3],
    };
    held.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    expect(await pending).toMatchObject({ status: 503 });
    expect(s.store.calls.listBySession(s.sessionId)[0]).toMatchObject({ status: 'engine_aborted', error: abortedByPolarMessage('tool_calls'), capture: { finishReason: 'tool_calls', tokenIds: [7] } });
    await controller.resume({});
  });

  it('only calls whose answer is incomplete are marked', () => {
    const calls = new InFlightCalls();
    const finished = { answerComplete: true };
    const running = {};
    calls.add(finished);
    calls.add(running);
    expect(calls.markEngineAbort()).toBe(1);
    expect(finished).not.toHaveProperty('engineAbortSent');
    expect(running).toMatchObject({ engineAbortSent: true });
  });
});
