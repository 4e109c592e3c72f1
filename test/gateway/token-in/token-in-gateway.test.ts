// Token-in mode end to end: official SDKs -> gateway -> the drifting simulator, on real sockets, for each
// engine family (vLLM: /tokenize + /v1/completions; SGLang: /tokenize + /generate, streamed when the client is);
// every assertion reads what the store committed and the prefix-merging build of it.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { callToJson } from '../../../src/cli/commands/sessions-actions.js';
import { toTrajectoryCall } from '../../../src/export/to-trajectory-call.js';
import type { ToolFormat } from '../../../src/model-format/format-types.js';
import { buildPrefixMerging } from '../../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../../src/trajectory/verify-trajectory.js';
import type { Policy } from '../../../src/sim/policy.js';
import { REALISTIC_DRIFT } from '../../../src/sim/sim-drift.js';
import type { EngineName } from '../../../src/upstream/engines/engine-name.js';
import { type GatewayStack, startGatewayStack } from '../../helpers/gateway-stack.js';

const TURNS = 7;
const DRIFT = { ...REALISTIC_DRIFT, seed: 3, compactJson: 0.5, argumentsFirst: 0.5, textBeforeTool: 0.3, asciiEscapes: 1 };
const stacks: GatewayStack[] = [];
afterEach(async () => {
  await Promise.all(stacks.splice(0).map((stack) => stack.close()));
});

/** Six tool-call turns with reasoning (non-ASCII, several keys), then an answer. */
const policy: Policy = (request) => {
  const step = request.messages.filter((m) => m.role === 'assistant').length;
  if (step >= TURNS - 1) return { reasoning: 'Done.', content: 'All tests pass.' };
  return { reasoning: `Step ${step}: look at file_${step}.py.`, toolCalls: [{ name: 'bash', arguments: { command: `cat "file_${step}.py" | grep ü`, timeout: 30 } }] };
};
const tool = { name: 'bash', description: 'Run a shell command', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'integer' } } } };

async function stack(engine: EngineName, tokenIn: boolean, toolFormat: ToolFormat = 'hermes', nonStreamingUpstream = false): Promise<GatewayStack> {
  const started = await startGatewayStack({ policy, sim: { toolFormat, drift: DRIFT, engine }, gateway: { tokenIn, toolFormat, nonStreamingUpstream, engine } });
  stacks.push(started);
  return started;
}

/** A harness on the OpenAI SDK: sends back what it was answered (optionally edited) plus a tool result. */
async function openaiSession(
  s: GatewayStack,
  stream: boolean,
  edit?: (messages: OpenAI.ChatCompletionMessageParam[]) => void,
  sideCall?: (client: OpenAI) => Promise<unknown>,
): Promise<void> {
  const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: s.key, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug.' },
  ];
  const tools = [{ type: 'function' as const, function: tool }];
  for (let turn = 0; turn < TURNS; turn++) {
    const body = { model: 'gpt-x', messages, tools };
    const completion = stream ? await client.chat.completions.stream(body).finalChatCompletion() : await client.chat.completions.create(body);
    const message = completion.choices[0]!.message;
    if (turn < TURNS - 1) expect(message.tool_calls?.[0]).toMatchObject({ function: { name: 'bash' } });
    messages.push({ role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: `ok ${turn}` });
    if (turn === 3) edit?.(messages);
    if (turn === 2) await sideCall?.(client);
  }
}

/** A harness on the Anthropic SDK (Claude Code's protocol): assistant blocks back as received, tool results. */
async function anthropicSession(s: GatewayStack, stream: boolean): Promise<void> {
  const client = new Anthropic({ baseURL: s.url, apiKey: s.key, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Fix the bug.' }];
  const tools = [{ name: tool.name, description: tool.description, input_schema: tool.parameters as Anthropic.Tool.InputSchema }];
  for (let turn = 0; turn < TURNS; turn++) {
    const body = { model: 'claude-x', max_tokens: 2048, system: 'You are a coding agent.', messages, tools };
    const message = stream ? await client.messages.stream(body).finalMessage() : await client.messages.create(body);
    const uses = message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    if (turn < TURNS - 1) expect(uses).toHaveLength(1);
    messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
    if (uses.length > 0) messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: `ok ${turn}` })) });
  }
}


function expectOneFaithfulRow(s: GatewayStack, engine: EngineName): void {
  const calls = s.store.calls.listBySession(s.sessionId);
  expect(calls).toHaveLength(TURNS);
  expect(calls.map((call) => call.status)).toEqual(Array(TURNS).fill('ok'));
  expect(calls.every((call) => call.engine === engine)).toBe(true);
  expect(calls[0]).toMatchObject({ mode: 'chat', tokenInFallback: { reason: 'no-lineage' } });
  for (const call of calls.slice(1)) {
    expect(call.mode).toBe('token_in');
    expect(call.tokenInFallback).toBeUndefined();
  }
  const trajectory = calls.map(toTrajectoryCall);
  const build = buildPrefixMerging(s.sessionId, trajectory);
  expect(build.rows).toHaveLength(1);
  expect(verifyTrajectory(trajectory, build)).toEqual([]);
  // The context of every turn is exactly the tokens sampled before it.
  for (let i = 1; i < calls.length; i++) {
    const before = [...calls[i - 1]!.capture.promptTokenIds!, ...calls[i - 1]!.capture.tokenIds!];
    expect(calls[i]!.capture.promptTokenIds!.slice(0, before.length)).toEqual(before);
  }
}

describe.each(['vllm', 'sglang'] as const)('token-in mode through the gateway (%s)', (engine) => {
  it.each([
    ['hermes', false],
    ['hermes', true],
    ['qwen3_coder', false],
    ['qwen3_coder', true],
  ] as const)('OpenAI SDK, %s, stream %s: one row, every later call token_in, fidelity holds', async (toolFormat, stream) => {
    const s = await stack(engine, true, toolFormat);
    await openaiSession(s, stream);
    expectOneFaithfulRow(s, engine);
    // Every call went upstream as the client asked: streamed or whole (SGLang's first call too, through /generate).
    const sent = s.store.calls.listBySession(s.sessionId, { withRaw: true }).map((call) => JSON.parse(call.raw.upstreamRequest!.toString('utf8')) as { stream?: boolean; input_ids?: unknown });
    expect(sent.map((body) => body.stream === true)).toEqual(sent.map(() => stream));
    if (engine === 'sglang') expect(sent.every((body) => Array.isArray(body.input_ids))).toBe(true);
  });

  it('--non-streaming-upstream: streamed to the client, captured whole upstream, still token_in and one row', async () => {
    const s = await stack(engine, true, 'hermes', true);
    await openaiSession(s, true);
    expectOneFaithfulRow(s, engine);
    const sent = s.store.calls.listBySession(s.sessionId, { withRaw: true }).at(-1)!;
    expect(JSON.parse(sent.raw.upstreamRequest!.toString('utf8'))).toMatchObject({ stream: false });
    expect(sent.stream).toBe(true);
  });

  it.each([false, true])('Anthropic SDK, stream %s: one row, every later call token_in, fidelity holds', async (stream) => {
    const s = await stack(engine, true);
    await anthropicSession(s, stream);
    expectOneFaithfulRow(s, engine);
  });

  it('the same session in chat mode drifts and splits; calls are recorded as chat without a fallback', async () => {
    const s = await stack(engine, false);
    await openaiSession(s, false);
    const calls = s.store.calls.listBySession(s.sessionId);
    expect(calls.every((call) => call.mode === 'chat' && call.tokenInFallback === undefined)).toBe(true);
    const build = buildPrefixMerging(s.sessionId, calls.map(toTrajectoryCall));
    expect(build.rows.length).toBeGreaterThan(1);
    expect(build.diagnostics.drift.continuationsWithDrift).toBeGreaterThan(0);
  });

  it('a side call between main calls starts its own lineage; the main one stays token_in and one row', async () => {
    const s = await stack(engine, true);
    await openaiSession(s, true, undefined, (client) =>
      client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'system', content: 'Write a title.' }, { role: 'user', content: 'Fix the bug.' }] }),
    );
    const calls = s.store.calls.listBySession(s.sessionId);
    expect(calls).toHaveLength(TURNS + 1);
    expect(calls.map((call) => call.mode)).toEqual(['chat', 'token_in', 'token_in', 'chat', ...Array(TURNS - 3).fill('token_in')]);
    expect(calls[3]!.tokenInFallback?.reason).toBe('no-lineage');
    const trajectory = calls.map(toTrajectoryCall);
    const build = buildPrefixMerging(s.sessionId, trajectory);
    expect(build.rows).toHaveLength(2);
    expect(build.rows.map((row) => row.callIds.length).sort()).toEqual([1, TURNS]);
    expect(verifyTrajectory(trajectory, build)).toEqual([]);
  });

  it('a harness that edits an earlier assistant message falls back with assistant-edited, recorded', async () => {
    const s = await stack(engine, true);
    await openaiSession(s, false, (messages) => {
      const assistant = messages.findLast((message) => message.role === 'assistant') as OpenAI.ChatCompletionAssistantMessageParam;
      const call = assistant.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      assistant.tool_calls = [{ ...call, function: { ...call.function, arguments: JSON.stringify({ command: 'rm -rf /tmp/x' }) } }];
    });
    const calls = s.store.calls.listBySession(s.sessionId);
    expect(calls[4]).toMatchObject({ mode: 'chat', tokenInFallback: { reason: 'assistant-edited' } });
    expect(calls[4]!.tokenInFallback!.detail).toMatch(/arguments/);
    expect(callToJson(calls[4]!)).toMatchObject({ mode: 'chat', token_in_fallback: { reason: 'assistant-edited' } });
    expect(callToJson(calls[3]!)).toMatchObject({ mode: 'token_in', token_in_fallback: null });
    // The chat-mode call starts a new lineage: the calls after it continue it as token ids again.
    expect(calls.slice(5).map((call) => call.mode)).toEqual(['token_in', 'token_in']);
    expect(calls.slice(1, 4).map((call) => call.mode)).toEqual(['token_in', 'token_in', 'token_in']);
    // What went upstream: the token-id prompt, and (no max_tokens asked, no preflight) the rest of the context.
    const [sent] = s.store.calls.listBySession(s.sessionId, { withRaw: true }).slice(5);
    if (engine === 'vllm') {
      const body = JSON.parse(sent!.raw.upstreamRequest!.toString('utf8')) as { prompt: number[]; max_tokens: number; return_token_ids: boolean };
      expect(body.prompt).toEqual(sent!.capture.promptTokenIds);
      expect(body.max_tokens).toBe(32768 - body.prompt.length); // the simulator's default max_model_len
      expect(body.return_token_ids).toBe(true);
    } else {
      const body = JSON.parse(sent!.raw.upstreamRequest!.toString('utf8')) as { input_ids: number[]; sampling_params: { max_new_tokens: number }; return_logprob: boolean; stream: boolean };
      expect(body.input_ids).toEqual(sent!.capture.promptTokenIds);
      expect(body.sampling_params.max_new_tokens).toBe(32768 - body.input_ids.length);
      expect(body).toMatchObject({ return_logprob: true, stream: false });
    }
  });
});
