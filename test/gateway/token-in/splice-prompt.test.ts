// Token-in splicing with the real Qwen3 template and tokenizer as the upstream's /tokenize: the model is conditioned on what it sampled.
import { describe, expect, it } from 'vitest';
import { assistantTurnDifference } from '../../../src/gateway/token-in/compare-assistant-turn.js';
import { splicePrompt } from '../../../src/gateway/token-in/splice-prompt.js';
import { extendLineage, planTokenIn, type TokenInLineage } from '../../../src/gateway/token-in/token-in-lineages.js';
import type { FormatMessage, FormatTool, ToolFormat } from '../../../src/model-format/format-types.js';
import { parseModelOutput } from '../../../src/model-format/parse-model-output.js';
import { renderChatPromptText } from '../../../src/model-format/render-chat-prompt.js';
import { buildPrefixMerging } from '../../../src/trajectory/build-prefix-merging.js';
import type { TrajectoryCall } from '../../../src/trajectory/trajectory-call.js';
import { encodeText } from '../../../src/sim/qwen-tokenizer.js';
import { renderSampledText } from '../../../src/sim/render-sampled-text.js';
import { REALISTIC_DRIFT } from '../../../src/sim/sim-drift.js';

const tools: FormatTool[] = [
  { type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' }, verbose: { type: 'boolean' } } } } },
];
/** Drift that always shows: compact JSON, text before the call, unicode escapes. */
const drift = { ...REALISTIC_DRIFT, compactJson: 1, textBeforeTool: 1, asciiEscapes: 1 };

/** The upstream's own tokenization of a conversation (what vLLM /tokenize with messages answers). */
function tokenize(messages: FormatMessage[], toolFormat: ToolFormat): number[] {
  return encodeText(renderChatPromptText({ messages, tools, toolFormat }));
}

interface Turn {
  prompt: number[];
  sampled: number[];
  /** The sampled text without its end token (what the parser reads). */
  text: string;
  message: FormatMessage;
}

/** One sampled turn and the assistant message a harness sends back for it. */
function sample(prompt: number[], step: number, toolFormat: ToolFormat): Turn {
  const turn = { reasoning: `Step ${step}.`, toolCalls: [{ name: 'bash', arguments: { command: `grep -n "é" f${step}.py`, verbose: true } }] };
  const text = renderSampledText(turn, { thinking: true, toolMode: { kind: 'auto' }, toolFormat, drift, driftKey: String(step) });
  const parsed = parseModelOutput(text.text.replace(/<\|im_end\|>$/, ''), { thinking: true, toolMode: { kind: 'auto' }, toolFormat, tools });
  const message: FormatMessage = {
    role: 'assistant',
    content: parsed.content?.trim() ? parsed.content : null,
    reasoning: parsed.reasoning,
    tool_calls: parsed.toolCalls.map((call, i) => ({ id: `call_${step}_${i}`, type: 'function', function: { name: call.name, arguments: call.arguments } })),
  };
  return { prompt, sampled: text.tokenIds, text: text.text.replace(/<\|im_end\|>$/, ''), message };
}

function asCalls(turns: Turn[]): TrajectoryCall[] {
  return turns.map((turn, seq) => ({
    id: seq + 1,
    seq,
    status: 'ok',
    promptTokenIds: turn.prompt,
    tokenIds: turn.sampled,
    logprobs: turn.sampled.map(() => -0.5),
    finishReason: 'tool_calls',
    response: null,
  }));
}

/** A session of `steps` tool-call turns, prompts built by token-in splicing (or, for chat mode, by the template). */
function session(toolFormat: ToolFormat, mode: 'token_in' | 'chat', steps = 8): Turn[] {
  const messages: FormatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug in f.py.' },
  ];
  const turns: Turn[] = [];
  let prompt = tokenize(messages, toolFormat);
  for (let step = 0; step < steps; step++) {
    const turn = sample(prompt, step, toolFormat);
    turns.push(turn);
    messages.push(turn.message, { role: 'tool', tool_call_id: `call_${step}_0`, content: `line ${step}: ok` });
    const rendered = tokenize(messages, toolFormat);
    if (mode === 'chat') {
      prompt = rendered;
      continue;
    }
    const spliced = splicePrompt([...turn.prompt, ...turn.sampled], rendered);
    if (!spliced.ok) throw new Error(`${spliced.reason}: ${spliced.detail}`);
    prompt = spliced.promptIds;
  }
  return turns;
}

describe.each(['hermes', 'qwen3_coder'] as const)('token-in splicing (%s)', (toolFormat) => {
  it('every turn is conditioned on exactly the tokens sampled before it: one row, no drift, fidelity checked', () => {
    const turns = session(toolFormat, 'token_in');
    for (let k = 1; k < turns.length; k++) {
      const before = [...turns[k - 1]!.prompt, ...turns[k - 1]!.sampled];
      expect(turns[k]!.prompt.slice(0, before.length)).toEqual(before);
    }
    const build = buildPrefixMerging(1, asCalls(turns));
    expect(build.rows).toHaveLength(1);
    expect(build.diagnostics.drift).toMatchObject({ mergedTurns: turns.length - 1, continuationsWithDrift: 0, driftTokens: 0 });
  });

  it('chat mode on the same samples splits and reports the drift in earlier assistant turns', () => {
    const build = buildPrefixMerging(1, asCalls(session(toolFormat, 'chat')));
    expect(build.rows.length).toBeGreaterThan(1);
    expect(build.diagnostics.drift.continuationsWithDrift).toBeGreaterThan(0);
    expect(build.diagnostics.drift.driftTokensByPlace['assistant-turn']).toBeGreaterThan(0);
    expect(build.diagnostics.drift.driftTokensByPlace['system-prompt']).toBe(0);
  });

  it('falls back with a typed reason when the harness rewrote its system prompt or edited an assistant turn', () => {
    const messages: FormatMessage[] = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'Fix the bug in f.py.' },
    ];
    const first = sample(tokenize(messages, toolFormat), 0, toolFormat);
    const prefix = [...first.prompt, ...first.sampled];
    const next = [first.message, { role: 'tool' as const, tool_call_id: 'call_0_0', content: 'ok' }];
    const rewritten = splicePrompt(prefix, tokenize([{ role: 'system', content: 'You are a careful agent.' }, messages[1]!, ...next], toolFormat));
    expect(rewritten).toMatchObject({ ok: false, reason: 'context-rewritten' });
    const parsed = parseModelOutput(first.text, { thinking: true, toolMode: { kind: 'auto' }, toolFormat, tools });
    expect(assistantTurnDifference(first.message, parsed)).toBeNull();
    const edited: FormatMessage = { ...first.message, tool_calls: [{ id: 'x', type: 'function', function: { name: 'bash', arguments: '{"command": "ls"}' } }] };
    expect(assistantTurnDifference(edited, parsed)).toMatch(/other arguments/);
    expect(assistantTurnDifference({ ...first.message, content: 'I changed my mind.' }, parsed)).toMatch(/content/);
    expect(splicePrompt(prefix.slice(0, -1), tokenize([...messages, ...next], toolFormat))).toMatchObject({ ok: false, reason: 'no-eos' });
  });
});

describe('planTokenIn over a session’s open lineages', () => {
  const toolFormat = 'hermes' as const;
  const base: FormatMessage[] = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: 'Fix the bug in f.py.' },
  ];
  const first = sample(tokenize(base, toolFormat), 0, toolFormat);
  const parsed = parseModelOutput(first.text, { thinking: true, toolMode: { kind: 'auto' }, toolFormat, tools });
  const next: FormatMessage[] = [...base, first.message, { role: 'tool', tool_call_id: 'call_0_0', content: 'ok' }];
  /** A title side call: its own system prompt, one turn. */
  const side = { tokens: [...encodeText('<|im_start|>system\nWrite a title.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n'), ...encodeText('Title<|im_end|>')], turns: [{ reasoning: null, content: 'Title', toolCalls: [], toolCallsFinish: false }] };

  it('continues the main lineage even with a side lineage open, keeping the sampled tokens', () => {
    const lineages = [side, { tokens: [...first.prompt, ...first.sampled], turns: [parsed] }];
    const plan = planTokenIn(lineages, next, tokenize(next, toolFormat));
    expect(plan.mode).toBe('token_in');
    if (plan.mode !== 'token_in') return;
    expect(plan.lineage).toBe(lineages[1]);
    expect(plan.promptIds.slice(0, first.prompt.length + first.sampled.length)).toEqual([...first.prompt, ...first.sampled]);
    expect(plan.promptIds).not.toEqual(tokenize(next, toolFormat)); // chat mode would re-render the turn (drift)
  });

  it('falls back with a reason: no lineage, an edited assistant turn, a rewritten system prompt', () => {
    expect(planTokenIn([side], next, tokenize(next, toolFormat))).toMatchObject({ mode: 'chat', fallback: { reason: 'no-lineage' } });
    const lineage = { tokens: [...first.prompt, ...first.sampled], turns: [parsed] };
    const edited = next.map((m) => (m.role === 'assistant' ? { ...m, content: 'Actually, something else.' } : m));
    expect(planTokenIn([lineage], edited, tokenize(edited, toolFormat))).toMatchObject({ mode: 'chat', fallback: { reason: 'assistant-edited' } });
    const rewritten = next.map((m) => (m.role === 'system' ? { ...m, content: 'You are a careful agent.' } : m));
    expect(planTokenIn([lineage], rewritten, tokenize(rewritten, toolFormat))).toMatchObject({ mode: 'chat', fallback: { reason: 'context-rewritten' } });
  });

  it('extends the continued lineage, or opens a new one', () => {
    const lineages: TokenInLineage[] = [];
    extendLineage(lineages, undefined, first.prompt, first.sampled, parsed);
    expect(lineages).toHaveLength(1);
    extendLineage(lineages, lineages[0], [1, 2], [3], parsed);
    expect(lineages[0]).toEqual({ tokens: [1, 2, 3], turns: [parsed, parsed] });
  });
});
