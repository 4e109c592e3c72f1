// Streaming deltas add up to the non-streaming parse, for every chunking; delta shapes follow vLLM.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseModelOutput } from '../../src/model-format/parse-model-output.js';
import { ModelStreamParser, type StreamDelta } from '../../src/model-format/model-stream-parser.js';
import { createIncrementalDecoder, QWEN_TOKEN_IDS } from '../../src/sim/qwen-tokenizer.js';
import { renderSampledText, type AnswerTurn } from '../../src/sim/render-sampled-text.js';
import type { ToolMode } from '../../src/model-format/format-types.js';

/** Per-token texts as the detokenizer yields them, EOS text dropped. */
function tokenTexts(turn: AnswerTurn, options: { thinking: boolean; toolMode: ToolMode }): string[] {
  const sampled = renderSampledText(turn, options);
  const decoder = createIncrementalDecoder();
  return sampled.tokenIds.map((id, i) => {
    const text = decoder.push(id);
    return sampled.finish === 'stop' && i === sampled.tokenIds.length - 1 && id === QWEN_TOKEN_IDS.imEnd ? '' : text;
  });
}

function stream(texts: string[], chunk: number, options: { thinking: boolean; toolMode: ToolMode }): (StreamDelta | null)[] {
  const parser = new ModelStreamParser(options);
  const deltas: (StreamDelta | null)[] = [];
  for (let i = 0; i < texts.length; i += chunk) {
    deltas.push(parser.push(texts.slice(i, i + chunk).join(''), i + chunk >= texts.length));
  }
  return deltas;
}

function accumulate(deltas: (StreamDelta | null)[]) {
  let reasoning = '';
  let content = '';
  const calls: { id?: string; name?: string; arguments: string }[] = [];
  for (const delta of deltas) {
    reasoning += delta?.reasoning ?? '';
    content += delta?.content ?? '';
    for (const call of delta?.tool_calls ?? []) {
      const slot = (calls[call.index] ??= { arguments: '' });
      if (call.id) {
        expect(slot.id).toBeUndefined();
        slot.id = call.id;
      }
      if (call.function?.name) slot.name = call.function.name;
      slot.arguments += call.function?.arguments ?? '';
    }
  }
  return { reasoning, content, calls };
}

function expectSameAsFull(turn: AnswerTurn, options: { thinking: boolean; toolMode: ToolMode }, chunk: number): void {
  const texts = tokenTexts(turn, options);
  const full = parseModelOutput(texts.join(''), options);
  const streamed = accumulate(stream(texts, chunk, options));
  expect(streamed.reasoning).toBe(full.reasoning ?? '');
  expect(streamed.content).toBe(full.content ?? '');
  expect(streamed.calls.map((c) => ({ name: c.name, arguments: c.arguments }))).toEqual(full.toolCalls);
  for (const call of streamed.calls) expect(call.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
}

const auto: ToolMode = { kind: 'auto' };
const bash = { name: 'bash', arguments: { cmd: 'cat "a b.py" | grep \'{\'', n: [1, 2.5, { x: null }] } };
const TURNS: [string, AnswerTurn, ToolMode][] = [
  ['text', { reasoning: 'Think it over.', content: 'Answer é漢🙂.' }, auto],
  ['calls with content', { reasoning: 'Plan', content: 'Looking <now>.', toolCalls: [bash, { name: 'noop', arguments: {} }] }, auto],
  ['calls only', { toolCalls: [bash] }, auto],
  ['content ending in a partial tag', { content: 'a <tool' }, auto],
  ['tool_choice none', { content: 'x', toolCalls: [bash] }, { kind: 'none' }],
  ['named', { reasoning: 'R', toolCalls: [bash] }, { kind: 'named', name: 'bash' }],
  ['required', { toolCalls: [bash, { name: 'noop', arguments: {} }] }, { kind: 'required' }],
  ['cut by length mid call', { content: 'c', toolCalls: [bash], finish: 'length' }, auto],
];

describe('ModelStreamParser', () => {
  it.each(TURNS)('%s: deltas add up to the full parse for chunk sizes 1, 2, 3, 7, all', (_name, turn, toolMode) => {
    for (const thinking of [true, false]) {
      for (const chunk of [1, 2, 3, 7, 10_000]) expectSameAsFull(turn, { thinking, toolMode }, chunk);
    }
  });

  it('shapes deltas like vLLM: held-back tokens give null, hermes deltas carry content and tool_calls', () => {
    const deltas = stream(tokenTexts({ reasoning: 'R', toolCalls: [{ name: 'f', arguments: { a: 1 } }] }, { thinking: true, toolMode: auto }), 1, {
      thinking: true,
      toolMode: auto,
    });
    expect(deltas[0]).toBeNull(); // <think>
    expect(deltas[1]).toEqual({ reasoning: '\n' });
    expect(deltas).toContainEqual({ content: '\n\n', tool_calls: [] });
    const first = deltas.find((d) => d?.tool_calls?.some((c) => c.id));
    expect(first).toMatchObject({ content: null, tool_calls: [{ type: 'function', index: 0, function: { name: 'f' } }] });
    expect(first?.tool_calls?.[0]?.function).toEqual({ name: 'f' });
    expect(deltas.at(-1)).toBeNull(); // the EOS token adds no text
  });

  it('named tool choice sends name and first arguments together', () => {
    const options = { thinking: false, toolMode: { kind: 'named', name: 'f' } as ToolMode };
    const deltas = stream(tokenTexts({ toolCalls: [{ name: 'f', arguments: { a: 1 } }] }, options), 1, options);
    expect(deltas.find((d) => d !== null)).toMatchObject({ tool_calls: [{ index: 0, type: 'function', function: { name: 'f', arguments: '{"' } }] });
  });

  it('property: random turns stream to the same result as the full parse', () => {
    const forbidden = ['<think>', '</think>', '<tool_call>', '</tool_call>', '<|'];
    const text = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((s) => !forbidden.some((f) => s.includes(f)));
    const call = fc.record({
      name: fc.stringMatching(/^[a-z_]{1,12}$/),
      arguments: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    });
    const turn = fc.record(
      { reasoning: text, content: text, toolCalls: fc.array(call, { maxLength: 3 }), finish: fc.constantFrom('stop' as const, 'length' as const) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(turn, fc.boolean(), fc.integer({ min: 1, max: 5 }), (t, thinking, chunk) => {
        expectSameAsFull(t, { thinking, toolMode: auto }, chunk);
      }),
      { numRuns: 120 },
    );
  });
});
