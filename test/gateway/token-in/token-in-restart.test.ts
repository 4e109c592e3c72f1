// Token-in lineages survive a gateway restart: the new gateway rebuilds a session's lineages from the
// calls the store committed, so the session's next call is still sent as token ids (no `no-lineage`).
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { toTrajectoryCall } from '../../../src/export/to-trajectory-call.js';
import { createGateway, type Gateway } from '../../../src/gateway/create-gateway.js';
import { rebuildLineages } from '../../../src/gateway/token-in/rebuild-lineages.js';
import { createStoreRecorder } from '../../../src/store/create-store-recorder.js';
import { buildPrefixMerging } from '../../../src/trajectory/build-prefix-merging.js';
import { verifyTrajectory } from '../../../src/trajectory/verify-trajectory.js';
import type { Policy } from '../../../src/sim/policy.js';
import { REALISTIC_DRIFT } from '../../../src/sim/sim-drift.js';
import { type GatewayStack, startGatewayStack } from '../../helpers/gateway-stack.js';

const policy: Policy = (request) => {
  const step = request.messages.filter((m) => m.role === 'assistant').length;
  return { reasoning: `Step ${step}.`, toolCalls: [{ name: 'bash', arguments: { command: `cat "f_${step}.py" | grep ü`, timeout: 30 } }] };
};
const DRIFT = { ...REALISTIC_DRIFT, seed: 5, compactJson: 0.5, argumentsFirst: 0.5, asciiEscapes: 1 };
const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'integer' } } } } }];
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

/** Runs `turns` more turns of the conversation against the gateway at `url`, sending back what it answered. */
async function continueSession(url: string, key: string, messages: OpenAI.ChatCompletionMessageParam[], turns: number): Promise<void> {
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
  for (let turn = 0; turn < turns; turn++) {
    const message = (await client.chat.completions.create({ model: 'm', messages, tools })).choices[0]!.message;
    messages.push({ role: 'assistant', content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: `ok ${messages.length}` });
  }
}

async function restartedGateway(s: GatewayStack, withHistory: boolean): Promise<{ gateway: Gateway; url: string }> {
  await s.gateway.close(); // the first gateway and its in-memory lineages are gone
  const gateway = createGateway({
    upstreamUrl: s.sim!.url,
    recorder: createStoreRecorder(s.store, { simulated: true }),
    tokenIn: true,
    ...(withHistory ? { tokenInHistory: (id: number) => s.store.calls.listBySession(id) } : {}),
  });
  cleanup.push(() => gateway.close());
  return { gateway, url: await gateway.listen(0) };
}

describe('token-in lineages across a gateway restart', () => {
  it.each([
    [true, 'token_in', 1],
    [false, 'chat', 2],
  ] as const)('with the store history %s: the first call after the restart goes %s, %i row(s)', async (withHistory, mode, rows) => {
    const s = await startGatewayStack({ policy, sim: { drift: DRIFT }, gateway: { tokenIn: true } });
    cleanup.push(() => s.close());
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the bug.' },
    ];
    await continueSession(s.url, s.key, messages, 3);
    const restarted = await restartedGateway(s, withHistory);
    await continueSession(restarted.url, s.key, messages, 3);
    const calls = s.store.calls.listBySession(s.sessionId);
    expect(calls.map((call) => call.mode)).toEqual(['chat', 'token_in', 'token_in', mode, 'token_in', 'token_in']);
    if (!withHistory) expect(calls[3]!.tokenInFallback?.reason).toBe('no-lineage');
    else expect(calls[3]!.tokenInFallback).toBeUndefined();
    const trajectory = calls.map(toTrajectoryCall);
    const build = buildPrefixMerging(s.sessionId, trajectory);
    expect(build.rows).toHaveLength(rows);
    expect(verifyTrajectory(trajectory, build)).toEqual([]);
  });

  it('rebuilds one lineage per chain of token_in calls, a chat call starting its own, keeping the newest', () => {
    const response = { content: [{ type: 'text' as const, text: 'x' }] } as never;
    const call = (mode: 'chat' | 'token_in', prompt: number[], sampled: number[]) => ({
      status: 'ok' as const,
      mode,
      response,
      capture: { promptTokenIds: prompt, tokenIds: sampled } as never,
    });
    const history = [
      call('chat', [1, 2], [3]),
      call('token_in', [1, 2, 3, 4], [5]),
      call('chat', [9], [8]), // a side call: its own lineage
      call('token_in', [1, 2, 3, 4, 5, 6], [7]),
      { ...call('token_in', [1, 2, 3, 4, 5, 6, 7, 0], [1]), status: 'upstream_error' as const },
    ];
    const lineages = rebuildLineages(history, 8);
    expect(lineages.map((lineage) => [lineage.tokens, lineage.turns.length])).toEqual([
      [[1, 2, 3, 4, 5, 6, 7], 3],
      [[9, 8], 1],
    ]);
    // Bounded as in memory: with one lineage kept, the side call pushes the main one out.
    expect(rebuildLineages(history, 1).map((lineage) => [lineage.tokens, lineage.turns.length])).toEqual([[[1, 2, 3, 4, 5, 6, 7], 1]]);
  });
});
