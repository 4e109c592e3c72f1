// The simulator samples like a model: with drift knobs on, a harness-style replay loop shows measured drift; without, none.
import { describe, expect, it } from 'vitest';
import type { ToolFormat } from '../../src/model-format/format-types.js';
import type { Policy } from '../../src/sim/policy.js';
import { NO_DRIFT, parseDriftSpec, REALISTIC_DRIFT, type DriftKnobs } from '../../src/sim/sim-drift.js';
import { startSimServer } from '../../src/sim/sim-server.js';
import { parseSimSpec } from '../../src/sim/parse-sim-spec.js';
import { isSimulatorSpec } from '../../src/rollout/start-rollout-upstream.js';
import { renderSampledText } from '../../src/sim/render-sampled-text.js';
import type { ChatCompletionWire } from '../../src/upstream/vllm-api-types.js';
import { buildPrefixMerging } from '../../src/trajectory/build-prefix-merging.js';
import type { TrajectoryCall } from '../../src/trajectory/trajectory-call.js';
import { postJson } from './sim-test-client.js';

const TURNS = 9;
const tools = [
  {
    type: 'function' as const,
    function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'integer' } } } },
  },
];
/** Eight tool-call turns with reasoning, then an answer. */
const policy: Policy = (request) => {
  const step = request.messages.filter((m) => m.role === 'assistant').length;
  if (step >= TURNS - 1) return { reasoning: 'Done.', content: 'All tests pass.' };
  return { reasoning: `Step ${step}: look at file_${step}.py.`, toolCalls: [{ name: 'bash', arguments: { command: `cat "file_${step}.py" | grep ü`, timeout: 30 } }] };
};

/** Drives a session as a harness does: sends back the parsed message (content, reasoning, tool calls) and a tool result. */
async function session(toolFormat: ToolFormat, drift: DriftKnobs): Promise<TrajectoryCall[]> {
  const sim = await startSimServer({ policy, toolFormat, drift });
  try {
    const messages: Record<string, unknown>[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the bug.' },
    ];
    const calls: TrajectoryCall[] = [];
    for (let seq = 0; seq < TURNS; seq++) {
      const body = { model: 'polar-sim-qwen3', messages, tools, logprobs: true, return_token_ids: true };
      const completion = (await postJson(`${sim.url}/chat/completions`, body)).json as ChatCompletionWire;
      const choice = completion.choices[0]!;
      calls.push({
        id: seq + 1,
        seq,
        status: 'ok',
        promptTokenIds: completion.prompt_token_ids!,
        tokenIds: choice.token_ids!,
        logprobs: choice.logprobs!.content!.map((entry) => entry.logprob),
        finishReason: choice.finish_reason,
        response: null,
      });
      const message = choice.message;
      // As polar's gateway does (build-upstream-request.ts): whitespace-only content next to tool calls is no content.
      const content = message.tool_calls?.length && !message.content?.trim() ? null : message.content;
      messages.push({ role: 'assistant', content, reasoning: message.reasoning, tool_calls: message.tool_calls });
      for (const call of message.tool_calls ?? []) messages.push({ role: 'tool', tool_call_id: call.id, content: 'ok' });
    }
    return calls;
  } finally {
    await sim.close();
  }
}

describe('simulator drift', () => {
  it('parses --drift specs and rejects unknown knobs', () => {
    expect(parseDriftSpec('none')).toEqual(NO_DRIFT);
    expect(parseDriftSpec('realistic')).toEqual(REALISTIC_DRIFT);
    expect(parseDriftSpec('none,seed=7,compactJson=1')).toEqual({ ...NO_DRIFT, seed: 7, compactJson: 1 });
    expect(() => parseDriftSpec('wobble=1')).toThrow(/Invalid drift setting/);
    expect(() => parseDriftSpec('compactJson=2')).toThrow(/Invalid drift setting/);
  });

  it('reads simulator options after the policy in a sim: spec', () => {
    expect(parseSimSpec('sim:oracle?tool-format=qwen3_coder&drift=none')).toEqual({ policySpec: 'oracle', options: { toolFormat: 'qwen3_coder', drift: NO_DRIFT } });
    expect(parseSimSpec('sim:noop?drift=realistic')).toEqual({ policySpec: 'noop', options: { drift: REALISTIC_DRIFT } });
    expect(() => parseSimSpec('sim:noop?tool-format=json')).toThrow(/expected one of hermes, qwen3_coder/);
    expect(isSimulatorSpec('sim?drift=none')).toBe(true);
  });

  it('is seeded: the same knobs and key give the same text, another seed another', () => {
    const turn = { reasoning: 'R', toolCalls: [{ name: 'bash', arguments: { command: 'é', n: 1 } }] };
    const sample = (seed: number, key: string) =>
      renderSampledText(turn, { thinking: true, toolMode: { kind: 'auto' }, drift: { ...REALISTIC_DRIFT, seed, compactJson: 0.5, argumentsFirst: 0.5 }, driftKey: key }).text;
    expect(sample(1, 'k')).toBe(sample(1, 'k'));
    const texts = new Set(Array.from({ length: 12 }, (_, i) => sample(i, 'k')));
    expect(texts.size).toBeGreaterThan(1);
  });

  it.each(['hermes', 'qwen3_coder'] as const)('%s without drift: the replayed session merges into one row', async (toolFormat) => {
    const build = buildPrefixMerging(1, await session(toolFormat, NO_DRIFT));
    // qwen3_coder: the integer timeout re-renders as sampled; the template keeps non-empty thinking after the query.
    expect(build.rows).toHaveLength(1);
    expect(build.diagnostics.drift.continuationsWithDrift).toBe(0);
  });

  it.each(['hermes', 'qwen3_coder'] as const)('%s with realistic drift: drift is measured in earlier assistant turns', async (toolFormat) => {
    const build = buildPrefixMerging(1, await session(toolFormat, { ...REALISTIC_DRIFT, seed: 3, compactJson: 0.5, textBeforeTool: 0.5, asciiEscapes: 1 }));
    const { drift } = build.diagnostics;
    expect(build.rows.length).toBeGreaterThan(1);
    expect(drift.continuationsWithDrift).toBeGreaterThan(0);
    expect(drift.driftTokensByPlace['assistant-turn']).toBeGreaterThan(0);
    expect(drift.continuationsWithDrift + drift.mergedTurns).toBe(TURNS - 1);
  });
});
