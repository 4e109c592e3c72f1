// The real Qwen3 template through @huggingface/jinja, with vLLM's message preparation, against Jinja2 goldens.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { encodeText } from '../../src/sim/qwen-tokenizer.js';
import { renderQwenPrompt, renderQwenPromptText } from '../../src/sim/render-qwen-prompt.js';
import { SimHttpError } from '../../src/sim/sim-errors.js';
import { parseSimRequest, type SimMessage } from '../../src/sim/sim-request.js';

interface PromptCase {
  name: string;
  request: unknown;
}
const fixtures = new URL('../fixtures/sim/', import.meta.url);
const cases = JSON.parse(readFileSync(new URL('prompt-cases.json', fixtures), 'utf8')) as PromptCase[];
// Produced by test/fixtures/sim/make-prompt-golden.py with CPython's Jinja2 and json, mimicking vLLM + transformers.
const golden = JSON.parse(readFileSync(new URL('prompt-golden.json', fixtures), 'utf8')) as { name: string; text: string }[];

function render(body: unknown): string {
  const request = parseSimRequest(body);
  return renderQwenPromptText({ messages: request.messages, tools: request.tools, chatTemplateKwargs: request.chat_template_kwargs });
}

describe('renderQwenPromptText', () => {
  it.each(cases.map((c, i) => [c.name, c.request, golden[i]?.text] as const))('%s matches Jinja2', (_name, body, expected) => {
    expect(render(body)).toBe(expected);
  });

  it('rejects tool call arguments that are not JSON with a 400', () => {
    const body = {
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{oops' } }] },
      ],
    };
    expect(() => render(body)).toThrow(SimHttpError);
    expect(() => render(body)).toThrow(/arguments is not valid JSON: Expecting property name/);
  });

  it('rejects image parts: the simulated model is text-only', () => {
    const body = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:,' } }] }] };
    expect(() => render(body)).toThrow(/text-only model/);
  });
});

describe('renderQwenPrompt token ids', () => {
  const messages: SimMessage[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Hi' },
  ];

  it('starts with <|im_start|>system and ends with the generation prompt', () => {
    const { text, tokenIds } = renderQwenPrompt({ messages });
    expect(tokenIds.slice(0, 3)).toEqual([151644, 8948, 198]);
    expect(tokenIds.slice(-3)).toEqual([151644, 77091, 198]);
    expect(tokenIds).toEqual(encodeText(text));
  });

  it('with enable_thinking false ends in an empty think block', () => {
    const { tokenIds } = renderQwenPrompt({ messages, chatTemplateKwargs: { enable_thinking: false } });
    expect(tokenIds.slice(-4)).toEqual([151667, 271, 151668, 271]);
  });

  it('renders and tokenises a 60 KB conversation well under a second', () => {
    renderQwenPrompt({ messages });
    const big: SimMessage[] = [{ role: 'system', content: 'Fix the bug.' }, { role: 'user', content: 'Go.' }];
    for (let i = 0; i < 50; i++) {
      big.push({
        role: 'assistant',
        content: '\n\n',
        reasoning: `Step ${i}: look at file ${i}.`,
        tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ cmd: `cat src/file_${i}.py` }) } }],
      });
      big.push({ role: 'tool', tool_call_id: `c${i}`, content: Array.from({ length: 30 }, (_, j) => `def f_${i}_${j}(x):\n    return x * ${j} + len("${i}")\n`).join('') });
    }
    const started = performance.now();
    const { text } = renderQwenPrompt({ messages: big });
    const elapsed = performance.now() - started;
    expect(text.length).toBeGreaterThan(60_000);
    expect(elapsed).toBeLessThan(1000);
  });
});
