// PolicyTurn -> the exact text (and token ids) a Qwen3 model would sample for it, with seeded model-like drift.
import type { ToolFormat, ToolMode } from '../model-format/format-types.js';
import { renderHermesCall } from '../model-format/hermes-tool-calls.js';
import { dumpsPyJson, pyJsonFromJs, type DumpsOptions, type PyJson } from '../model-format/python-json.js';
import { renderQwen3CoderCall, xmlParameterValue } from '../model-format/qwen3-coder-tool-calls.js';
import type { PolicyToolCall, PolicyTurn } from './policy.js';
import { encodeText } from './qwen-tokenizer.js';
import { driftRandom, NO_DRIFT, type DriftKnobs } from './sim-drift.js';

export type AnswerTurn = Exclude<PolicyTurn, { error: unknown }>;

export interface SampledText {
  /** Everything sampled, including `<|im_end|>` when the turn stops. */
  text: string;
  tokenIds: number[];
  finish: 'stop' | 'length';
}

export interface SampleOptions {
  thinking: boolean;
  toolMode: ToolMode;
  /** Default hermes. */
  toolFormat?: ToolFormat;
  /** Default none: canonical text, exactly as the template would re-render it. */
  drift?: DriftKnobs;
  /** What makes this call's draws differ from another's (the prompt text); same key, same drift. */
  driftKey?: string;
}

const IM_END = '<|im_end|>';
const LEAD_INS = ['Let me look at that.', "I'll check the files first.", 'Running the command now.', 'Next, I will edit the file.'];

function dict(entries: [string, PyJson][]): PyJson {
  return { type: 'dict', entries: new Map(entries) };
}

/** One turn's draws, taken in a fixed order so a seed gives the same text every time. */
interface Draws {
  json: (call: PolicyToolCall) => DumpsOptions & { argumentsFirst: boolean };
  leadIn: string | undefined;
  emptyThink: boolean;
}

function drawsFor(options: SampleOptions): Draws {
  const knobs = options.drift ?? NO_DRIFT;
  const random = driftRandom(knobs.seed, options.driftKey ?? '');
  const hit = (p: number) => p > 0 && random() < p;
  const emptyThink = hit(knobs.emptyThink);
  const leadIn = hit(knobs.textBeforeTool) ? LEAD_INS[Math.floor(random() * LEAD_INS.length)] : undefined;
  return {
    emptyThink,
    leadIn,
    json: () => ({ compact: hit(knobs.compactJson), ascii: hit(knobs.asciiEscapes), argumentsFirst: hit(knobs.argumentsFirst) }),
  };
}

function hermesJson(call: PolicyToolCall, style: DumpsOptions & { argumentsFirst: boolean }): string {
  const name: [string, PyJson] = ['name', { type: 'str', value: call.name }];
  const args: [string, PyJson] = ['arguments', pyJsonFromJs(call.arguments)];
  return dumpsPyJson(dict(style.argumentsFirst ? [args, name] : [name, args]), style);
}

function renderCall(call: PolicyToolCall, format: ToolFormat, draws: Draws): string {
  const style = draws.json(call);
  if (format === 'hermes') return renderHermesCall(hermesJson(call, style));
  const parameters = Object.entries(call.arguments).map(([key, value]): [string, string] => [
    key,
    typeof value === 'object' && value !== null ? dumpsPyJson(pyJsonFromJs(value), style) : xmlParameterValue(value),
  ]);
  return renderQwen3CoderCall(call.name, parameters);
}

/** What follows the think block: content and tool calls in the format the tool mode implies. */
function answerBody(turn: AnswerTurn, options: SampleOptions, draws: Draws): string {
  const calls = turn.toolCalls ?? [];
  const mode = options.toolMode;
  const format = options.toolFormat ?? 'hermes';
  switch (mode.kind) {
    case 'none':
    case 'auto': {
      const content = turn.content || (calls.length > 0 && mode.kind === 'auto' ? (draws.leadIn ?? '') : '');
      if (calls.length === 0) return content;
      const rendered = calls.map((call) => renderCall(call, format, draws)).join('\n');
      const glue = content === '' ? '' : format === 'qwen3_coder' ? '\n\n' : '\n';
      return `${content}${glue}${rendered}`;
    }
    case 'named': {
      // Guided decoding: the arguments object of the named function, nothing else.
      const call = calls.find((c) => c.name === mode.name) ?? calls[0];
      return dumpsPyJson(pyJsonFromJs(call?.arguments ?? {}));
    }
    case 'required': {
      const list: PyJson = {
        type: 'list',
        items: calls.map((c) => dict([['name', { type: 'str', value: c.name }], ['parameters', pyJsonFromJs(c.arguments)]])),
      };
      return dumpsPyJson(list);
    }
    default: {
      const never: never = mode;
      return never;
    }
  }
}

/**
 * The sampled text: `<think>\n{reasoning}\n</think>\n\n` (always, empty when there is no reasoning, as
 * Qwen3 does in thinking mode; never when enable_thinking is false), then the content, then each tool
 * call in the tool format (hermes `<tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>`, or
 * qwen3_coder XML), separated by "\n", then `<|im_end|>` when the turn stops. With drift knobs, some
 * turns come out as a model writes them rather than as the template re-renders them (sim-drift.ts).
 */
export function renderSampledText(turn: AnswerTurn, options: SampleOptions): SampledText {
  const draws = drawsFor(options);
  const reasoning = draws.emptyThink ? '' : (turn.reasoning ?? '');
  const think = options.thinking ? `<think>\n${reasoning}\n</think>\n\n` : '';
  const finish = turn.finish ?? 'stop';
  const text = `${think}${answerBody(turn, options, draws)}${finish === 'stop' ? IM_END : ''}`;
  return { text, tokenIds: encodeText(text), finish };
}
