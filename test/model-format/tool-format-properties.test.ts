// Properties of both tool formats: parse(render(x)) gives x back, and streaming parse equals the full parse for every chunking.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FormatTool, ParseOptions, ToolFormat } from '../../src/model-format/format-types.js';
import { ModelStreamParser, type StreamDelta } from '../../src/model-format/model-stream-parser.js';
import { parseModelOutput } from '../../src/model-format/parse-model-output.js';
import { dumpsPyJson, pyJsonFromJs } from '../../src/model-format/python-json.js';
import { renderSampledText, type AnswerTurn } from '../../src/sim/render-sampled-text.js';
import { REALISTIC_DRIFT } from '../../src/sim/sim-drift.js';

const FORMATS: ToolFormat[] = ['hermes', 'qwen3_coder'];
const TAGS = ['<think>', '</think>', '<tool_call>', '</tool_call>', '<function=', '</function>', '<parameter=', '</parameter>', '<|'];
const text = fc.string({ unit: 'grapheme', maxLength: 24 }).filter((s) => !TAGS.some((t) => s.includes(t)) && !s.includes('<'));

type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array';
const VALUES: Record<ParamType, fc.Arbitrary<unknown>> = {
  string: text.filter((s) => s.toLowerCase() !== 'null'),
  integer: fc.integer({ min: -1e6, max: 1e6 }),
  number: fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  boolean: fc.boolean(),
  object: fc.dictionary(fc.stringMatching(/^[a-z]{1,5}$/), fc.oneof(fc.integer(), fc.boolean(), text), { maxKeys: 3 }),
  array: fc.array(fc.oneof(fc.integer(), text), { maxLength: 3 }),
};

/** A tool with typed parameters and a call of it with values of those types. */
const toolAndCall = fc
  .record({
    name: fc.stringMatching(/^[a-z_]{1,10}$/),
    params: fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z_]{1,8}$/), fc.constantFrom<ParamType>(...(Object.keys(VALUES) as ParamType[]))), {
      maxLength: 4,
      selector: ([key]) => key,
    }),
  })
  .chain(({ name, params }) =>
    fc.tuple(...params.map(([, type]) => VALUES[type])).map((values) => {
      const tool: FormatTool = {
        type: 'function',
        function: { name, parameters: { type: 'object', properties: Object.fromEntries(params.map(([key, type]) => [key, { type }])) } },
      };
      const args = Object.fromEntries(params.map(([key], i) => [key, values[i]]));
      return { tool, call: { name, arguments: args } };
    }),
  );

const turnArb = fc.record({
  reasoning: text,
  content: text,
  calls: fc.uniqueArray(toolAndCall, { maxLength: 3, selector: (c) => c.call.name }),
  thinking: fc.boolean(),
});

function sample(turn: AnswerTurn, options: ParseOptions, drift: boolean, key: string): string {
  const sampled = renderSampledText(turn, { ...options, toolFormat: options.toolFormat, drift: drift ? REALISTIC_DRIFT : undefined, driftKey: key });
  return sampled.text.replace(/<\|im_end\|>$/, '');
}

function accumulate(deltas: (StreamDelta | null)[]) {
  let reasoning = '';
  let content = '';
  const calls: { name: string; arguments: string }[] = [];
  for (const delta of deltas) {
    reasoning += delta?.reasoning ?? '';
    content += delta?.content ?? '';
    for (const call of delta?.tool_calls ?? []) {
      const slot = (calls[call.index] ??= { name: '', arguments: '' });
      if (call.function?.name) slot.name = call.function.name;
      slot.arguments += call.function?.arguments ?? '';
    }
  }
  return { reasoning, content, calls };
}

/** Tags that are one token in Qwen's vocabulary: a detokenizer never splits them. */
const SINGLE_TOKENS = ['<think>', '</think>', '<tool_call>', '</tool_call>'];

function insideSingleToken(s: string, at: number): boolean {
  return SINGLE_TOKENS.some((tag) => {
    for (let i = s.indexOf(tag); i >= 0; i = s.indexOf(tag, i + 1)) if (at > i && at < i + tag.length) return true;
    return false;
  });
}

/** Splits `s` at the given offsets (anywhere but inside a single-token tag). */
function chunksAt(s: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].filter((p) => !insideSingleToken(s, p)).sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const p of points) {
    out.push(s.slice(last, p));
    last = p;
  }
  out.push(s.slice(last));
  return out;
}

describe.each(FORMATS)('tool format %s', (toolFormat) => {
  it('property: parse(render(turn)) gives the reasoning, content and typed calls back', () => {
    fc.assert(
      fc.property(turnArb, ({ reasoning, content, calls, thinking }) => {
        const tools = calls.map((c) => c.tool);
        const options: ParseOptions = { thinking, toolMode: { kind: 'auto' }, toolFormat, tools };
        const turn: AnswerTurn = { reasoning, content, toolCalls: calls.map((c) => c.call) };
        const parsed = parseModelOutput(sample(turn, options, false, ''), options);
        expect(parsed.toolCalls).toEqual(calls.map((c) => ({ name: c.call.name, arguments: dumpsPyJson(pyJsonFromJs(c.call.arguments)) })));
        if (thinking) expect(parsed.reasoning).toBe(`\n${reasoning}\n`);
        const glue = calls.length > 0 && content !== '' ? (toolFormat === 'qwen3_coder' ? '\n\n' : '\n') : '';
        const expected = `${thinking ? '\n\n' : ''}${content}${glue}`;
        expect(parsed.content ?? '').toBe(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('property: the streamed deltas add up to the full parse for every chunking (drift on)', () => {
    fc.assert(
      fc.property(turnArb, fc.array(fc.nat(), { maxLength: 12 }), fc.string({ maxLength: 6 }), ({ reasoning, content, calls, thinking }, cuts, key) => {
        const tools = calls.map((c) => c.tool);
        const options: ParseOptions = { thinking, toolMode: { kind: 'auto' }, toolFormat, tools };
        const turn: AnswerTurn = { reasoning, content, toolCalls: calls.map((c) => c.call) };
        const output = sample(turn, options, true, key);
        const full = parseModelOutput(output, options);
        const parser = new ModelStreamParser(options);
        const pieces = chunksAt(output, cuts);
        const streamed = accumulate(pieces.map((piece, i) => parser.push(piece, i === pieces.length - 1)));
        expect(streamed.reasoning).toBe(full.reasoning ?? '');
        expect(streamed.content).toBe(full.content ?? '');
        // hermes streams the argument text as sampled (vLLM >= 0.11), so compare it as JSON; qwen3_coder exactly.
        const norm = (calls: { name: string; arguments: string }[]) =>
          toolFormat === 'hermes' ? calls.map((c) => ({ name: c.name, arguments: JSON.parse(c.arguments) as unknown })) : calls;
        expect(norm(streamed.calls)).toEqual(norm(full.toolCalls));
      }),
      { numRuns: 150 },
    );
  });
});

describe('qwen3_coder parameter typing (vLLM _convert_param_value)', () => {
  const tools: FormatTool[] = [
    {
      type: 'function',
      function: {
        name: 'f',
        parameters: { type: 'object', properties: { n: { type: 'integer' }, x: { type: 'number' }, b: { type: 'boolean' }, o: { type: 'object' }, s: { type: 'string' } } },
      },
    },
  ];
  const parse = (body: string) =>
    parseModelOutput(`<tool_call>\n<function=f>\n${body}</function>\n</tool_call>`, { thinking: false, toolMode: { kind: 'auto' }, toolFormat: 'qwen3_coder', tools }).toolCalls;

  it('types values by the schema; undeclared and string parameters stay strings; null is None', () => {
    expect(parse('<parameter=n>\n42\n</parameter>\n<parameter=x>\n2.0\n</parameter>\n<parameter=b>\nTrue\n</parameter>\n')).toEqual([
      { name: 'f', arguments: '{"n": 42, "x": 2, "b": true}' },
    ]);
    expect(parse('<parameter=o>\n{"a": [1]}\n</parameter>\n<parameter=s>\n5\n</parameter>\n<parameter=z>\n7\n</parameter>\n<parameter=n>\nnull\n</parameter>\n')).toEqual([
      { name: 'f', arguments: '{"o": {"a": [1]}, "s": "5", "z": "7", "n": null}' },
    ]);
  });

  it('keeps text before the call as content and parses an unclosed last parameter', () => {
    const parsed = parseModelOutput('Sure.\n\n<tool_call>\n<function=f>\n<parameter=s>\nabc', {
      thinking: false,
      toolMode: { kind: 'auto' },
      toolFormat: 'qwen3_coder',
      tools,
    });
    expect(parsed.content).toBe('Sure.\n\n');
    expect(parsed.toolCalls).toEqual([{ name: 'f', arguments: '{"s": "abc"}' }]);
  });
});
