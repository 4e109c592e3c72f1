// vLLM's qwen3 reasoning parser + hermes tool parser on sampled text, and round trips through real tokens.
import { describe, expect, it } from 'vitest';
import type { ParsedModelOutput } from '../../src/model-format/format-types.js';
import { parseModelOutput } from '../../src/model-format/parse-model-output.js';
import { createIncrementalDecoder } from '../../src/sim/qwen-tokenizer.js';
import { renderSampledText, type AnswerTurn } from '../../src/sim/render-sampled-text.js';
import type { ToolMode } from '../../src/model-format/format-types.js';

const auto: ToolMode = { kind: 'auto' };

const TEXTS: [string, string, { thinking: boolean; toolMode: ToolMode }, ParsedModelOutput][] = [
  ['reasoning and content keep their newlines', '<think>\nR\n</think>\n\nHello', { thinking: true, toolMode: auto }, { reasoning: '\nR\n', content: '\n\nHello', toolCalls: [], toolCallsFinish: false }],
  ['cut while thinking: all reasoning', '<think>\nstill going', { thinking: true, toolMode: auto }, { reasoning: '\nstill going', content: null, toolCalls: [], toolCallsFinish: false }],
  ['thinking off: all content', 'Plain', { thinking: false, toolMode: auto }, { reasoning: null, content: 'Plain', toolCalls: [], toolCallsFinish: false }],
  [
    'hermes call re-dumped with Python separators',
    '<think>\n\n</think>\n\n<tool_call>\n{"name":"f","arguments":{"b":1.0,"a":[1,2]}}\n</tool_call>',
    { thinking: true, toolMode: auto },
    { reasoning: '\n\n', content: '\n\n', toolCalls: [{ name: 'f', arguments: '{"b": 1.0, "a": [1, 2]}' }], toolCallsFinish: true },
  ],
  [
    'unterminated call with complete JSON still parses',
    '<tool_call>\n{"name": "f", "arguments": {}}',
    { thinking: false, toolMode: auto },
    { reasoning: null, content: null, toolCalls: [{ name: 'f', arguments: '{}' }], toolCallsFinish: true },
  ],
  [
    'broken JSON leaves the raw text as content',
    '<think>\n\n</think>\n\nx<tool_call>\n{"name": "f", "arguments": {\n</tool_call>',
    { thinking: true, toolMode: auto },
    { reasoning: '\n\n', content: '\n\nx<tool_call>\n{"name": "f", "arguments": {\n</tool_call>', toolCalls: [], toolCallsFinish: false },
  ],
  [
    'tool_choice none: no parsing',
    '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
    { thinking: false, toolMode: { kind: 'none' } },
    { reasoning: null, content: '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', toolCalls: [], toolCallsFinish: false },
  ],
];

describe('parseModelOutput', () => {
  it.each(TEXTS)('%s', (_name, text, options, expected) => {
    expect(parseModelOutput(text, options)).toEqual(expected);
  });
});

/** Sampled text the way vLLM's detokenizer hands it to the parsers: EOS dropped. */
function sampledOutputText(turn: AnswerTurn, options: { thinking: boolean; toolMode: ToolMode }): string {
  const sampled = renderSampledText(turn, options);
  const ids = sampled.finish === 'stop' ? sampled.tokenIds.slice(0, -1) : sampled.tokenIds;
  const decoder = createIncrementalDecoder();
  return ids.map((id) => decoder.push(id)).join('');
}

const args = { cmd: 'grep -n "x" é漢🙂.py\n', flags: ['-r', 1, 2.5, null, true], nested: { deep: { k: 'v' } } };

const ROUND_TRIPS: [string, AnswerTurn, ToolMode, { name: string; arguments: string }[]][] = [
  ['two hermes calls', { reasoning: 'R', content: 'Looking.', toolCalls: [{ name: 'bash', arguments: args }, { name: 'noop', arguments: {} }] }, auto, [
    { name: 'bash', arguments: '{"cmd": "grep -n \\"x\\" é漢🙂.py\\n", "flags": ["-r", 1, 2.5, null, true], "nested": {"deep": {"k": "v"}}}' },
    { name: 'noop', arguments: '{}' },
  ]],
  ['named', { toolCalls: [{ name: 'bash', arguments: args }] }, { kind: 'named', name: 'bash' }, [
    { name: 'bash', arguments: '{"cmd": "grep -n \\"x\\" é漢🙂.py\\n", "flags": ["-r", 1, 2.5, null, true], "nested": {"deep": {"k": "v"}}}' },
  ]],
  ['required', { toolCalls: [{ name: 'a', arguments: { x: 1 } }, { name: 'b', arguments: {} }] }, { kind: 'required' }, [
    { name: 'a', arguments: '{"x": 1}' },
    { name: 'b', arguments: '{}' },
  ]],
];

describe('round trip: PolicyTurn -> tokens -> text -> parsed calls', () => {
  it.each(ROUND_TRIPS)('%s', (_name, turn, toolMode, expected) => {
    for (const thinking of [true, false]) {
      const parsed = parseModelOutput(sampledOutputText(turn, { thinking, toolMode }), { thinking, toolMode });
      expect(parsed.toolCalls).toEqual(expected);
      expect(JSON.parse(parsed.toolCalls[0]?.arguments ?? 'null')).toEqual(JSON.parse(expected[0]?.arguments ?? 'null'));
    }
  });

  it('keeps reasoning and content around the calls', () => {
    const turn: AnswerTurn = { reasoning: 'Plan.', content: 'Looking.', toolCalls: [{ name: 'bash', arguments: { cmd: 'ls' } }] };
    const parsed = parseModelOutput(sampledOutputText(turn, { thinking: true, toolMode: auto }), { thinking: true, toolMode: auto });
    expect(parsed.reasoning).toBe('\nPlan.\n');
    expect(parsed.content).toBe('\n\nLooking.\n');
  });
});
