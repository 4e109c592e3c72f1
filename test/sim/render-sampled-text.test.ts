// PolicyTurn -> sampled Qwen3 text: exact format per tool mode, EOS handling.
import { describe, expect, it } from 'vitest';
import { renderSampledText, type AnswerTurn } from '../../src/sim/render-sampled-text.js';
import type { ToolMode } from '../../src/sim/sim-request.js';

const auto: ToolMode = { kind: 'auto' };
const bash = { name: 'bash', arguments: { cmd: 'ls', n: 2 } };

const CASES: [string, AnswerTurn, { thinking: boolean; toolMode: ToolMode }, string][] = [
  ['text with reasoning', { reasoning: 'Think.', content: 'Hi.' }, { thinking: true, toolMode: auto }, '<think>\nThink.\n</think>\n\nHi.<|im_end|>'],
  ['empty think block without reasoning', { content: 'Hi.' }, { thinking: true, toolMode: auto }, '<think>\n\n</think>\n\nHi.<|im_end|>'],
  ['no think block when thinking is off', { reasoning: 'dropped', content: 'Hi.' }, { thinking: false, toolMode: auto }, 'Hi.<|im_end|>'],
  [
    'tool calls after content',
    { content: 'Looking.', toolCalls: [bash, { name: 'read', arguments: { path: 'é.py' } }] },
    { thinking: true, toolMode: auto },
    '<think>\n\n</think>\n\nLooking.\n<tool_call>\n{"name": "bash", "arguments": {"cmd": "ls", "n": 2}}\n</tool_call>\n<tool_call>\n{"name": "read", "arguments": {"path": "é.py"}}\n</tool_call><|im_end|>',
  ],
  [
    'tool call without content',
    { reasoning: 'R', toolCalls: [bash] },
    { thinking: true, toolMode: auto },
    '<think>\nR\n</think>\n\n<tool_call>\n{"name": "bash", "arguments": {"cmd": "ls", "n": 2}}\n</tool_call><|im_end|>',
  ],
  ['named tool choice: guided arguments only', { toolCalls: [bash] }, { thinking: true, toolMode: { kind: 'named', name: 'bash' } }, '<think>\n\n</think>\n\n{"cmd": "ls", "n": 2}<|im_end|>'],
  [
    'required tool choice: guided list',
    { toolCalls: [bash] },
    { thinking: false, toolMode: { kind: 'required' } },
    '[{"name": "bash", "parameters": {"cmd": "ls", "n": 2}}]<|im_end|>',
  ],
  ['finish length: no EOS', { content: 'cut', finish: 'length' }, { thinking: false, toolMode: auto }, 'cut'],
];

describe('renderSampledText', () => {
  it.each(CASES)('%s', (_name, turn, options, expected) => {
    const sampled = renderSampledText(turn, options);
    expect(sampled.text).toBe(expected);
    expect(sampled.finish).toBe(turn.finish ?? 'stop');
    expect(sampled.tokenIds.at(-1) === 151645).toBe(sampled.finish === 'stop');
  });

  it('starts a thinking turn with the <think> token', () => {
    expect(renderSampledText({ reasoning: 'Plan.', content: 'x' }, { thinking: true, toolMode: auto }).tokenIds.slice(0, 2)).toEqual([151667, 198]);
    expect(renderSampledText({ content: 'x' }, { thinking: true, toolMode: auto }).tokenIds.slice(0, 4)).toEqual([151667, 271, 151668, 271]);
  });
});
