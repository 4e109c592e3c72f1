// Capture mode is a property of the session, not of the gateway: one gateway (as `polar serve` shares one across
// its batches) with no gateway-wide token-in, two sessions at once against the drifting simulator, one whose
// settings (its batch's "capture": "token_in") send lineage continuations as token ids (vLLM /v1/completions,
// SGLang /generate), one captured the chat way. Only the first is one row with fidelity; the second drifts.
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { toTrajectoryCall } from '../../../src/export/to-trajectory-call.js';
import type { SessionCallSettings } from '../../../src/gateway/create-gateway.js';
import { REALISTIC_DRIFT } from '../../../src/sim/sim-drift.js';
import type { Policy } from '../../../src/sim/policy.js';
import { buildPrefixMerging } from '../../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../../src/trajectory/verify-trajectory.js';
import { type GatewayStack, startGatewayStack } from '../../helpers/gateway-stack.js';
import { startRecordingUpstream, type RecordingUpstream } from '../../rollout/recording-upstream.js';

const TURNS = 6;
const DRIFT = { ...REALISTIC_DRIFT, seed: 5, compactJson: 0.5, argumentsFirst: 0.5, textBeforeTool: 0.4, asciiEscapes: 1 };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const policy: Policy = (request) => {
  const step = request.messages.filter((m) => m.role === 'assistant').length;
  if (step >= TURNS - 1) return { reasoning: 'Done.', content: 'All tests pass.' };
  return { reasoning: `Step ${step}: look.`, toolCalls: [{ name: 'bash', arguments: { command: `grep -n "ü" file_${step}.py`, timeout: 30 } }] };
};
const tools = [{ type: 'function' as const, function: { name: 'bash', description: 'Run a shell command', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'integer' } } } } }];

async function session(s: GatewayStack, key: string): Promise<void> {
  const client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: key, maxRetries: 0 });
  const messages: OpenAI.ChatCompletionMessageParam[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug.' },
  ];
  for (let turn = 0; turn < TURNS; turn++) {
    const message = (await client.chat.completions.create({ model: 'gpt-x', messages, tools })).choices[0]!.message;
    messages.push({ role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: `ok ${turn}` });
  }
}

describe.each(['vllm', 'sglang'] as const)('per-session capture on one gateway (%s)', (engine) => {
  it('a token-in session and a chat session at once: each call goes the way its session says', async () => {
    const recording: RecordingUpstream = await startRecordingUpstream({ policy, engine, drift: DRIFT });
    cleanups.push(() => recording.close());
    const settings = new Map<number, SessionCallSettings>();
    const s = await startGatewayStack({ upstreamUrl: recording.url, gateway: { engine, upstreamModel: undefined, sessionSettings: (id) => settings.get(id) } });
    cleanups.push(() => s.close());
    const chat = s.newKey();
    settings.set(s.sessionId, { tokenIn: true, toolFormat: 'hermes' });
    settings.set(chat.id, { tokenIn: false });
    await Promise.all([session(s, s.key), session(s, chat.key)]);

    const tokenInCalls = s.store.calls.listBySession(s.sessionId);
    expect(tokenInCalls.map((call) => [call.status, call.mode])).toEqual([['ok', 'chat'], ...Array(TURNS - 1).fill(['ok', 'token_in'])]);
    expect(tokenInCalls[0]!.tokenInFallback?.reason).toBe('no-lineage');
    const trajectory = tokenInCalls.map(toTrajectoryCall);
    const build = buildPrefixMerging(s.sessionId, trajectory);
    expect(build.rows).toHaveLength(1);
    expect(build.diagnostics.drift.driftTokens).toBe(0);
    expect(verifyTrajectory(trajectory, build)).toEqual([]);

    const chatCalls = s.store.calls.listBySession(chat.id);
    expect(chatCalls.every((call) => call.status === 'ok' && call.mode === 'chat' && call.tokenInFallback === undefined)).toBe(true);
    expect(buildPrefixMerging(chat.id, chatCalls.map(toTrajectoryCall)).diagnostics.drift.continuationsWithDrift).toBeGreaterThan(0);

    // What the engine served: the token-in session's continuations on the token-id route (on SGLang its first
    // call too, streamed through /generate so a keep pause sees each token), everything else chat.
    const idRoute = engine === 'vllm' ? '/v1/completions' : '/generate';
    const firstCallOnIds = engine === 'sglang' ? 1 : 0;
    const paths = recording.served.map((served) => served.path);
    expect(paths.filter((path) => path === idRoute)).toHaveLength(TURNS - 1 + firstCallOnIds);
    expect(paths.filter((path) => path === '/v1/chat/completions')).toHaveLength(TURNS + 1 - firstCallOnIds);
  });
});
