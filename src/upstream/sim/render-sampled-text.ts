// PolicyTurn -> the exact text (and token ids) a Qwen3 model would sample for it.
import type { PolicyToolCall, PolicyTurn } from './policy.js';
import { dumpsPyJson, pyJsonFromJs, type PyJson } from './python-json.js';
import { encodeText } from './qwen-tokenizer.js';
import type { ToolMode } from './sim-request.js';

export type AnswerTurn = Exclude<PolicyTurn, { error: unknown }>;

export interface SampledText {
  /** Everything sampled, including `<|im_end|>` when the turn stops. */
  text: string;
  tokenIds: number[];
  finish: 'stop' | 'length';
}

const IM_END = '<|im_end|>';

function dict(entries: [string, PyJson][]): PyJson {
  return { type: 'dict', entries: new Map(entries) };
}

/** `{"name": "x", "arguments": {...}}` exactly as json.dumps writes it. */
function hermesCallJson(call: PolicyToolCall): string {
  return dumpsPyJson(dict([['name', { type: 'str', value: call.name }], ['arguments', pyJsonFromJs(call.arguments)]]));
}

/** What follows the think block: content and tool calls in the format the tool mode implies. */
function answerBody(turn: AnswerTurn, mode: ToolMode): string {
  const calls = turn.toolCalls ?? [];
  switch (mode.kind) {
    case 'none':
    case 'auto': {
      const content = turn.content ?? '';
      if (calls.length === 0) return content;
      const rendered = calls.map((call) => `<tool_call>\n${hermesCallJson(call)}\n</tool_call>`).join('\n');
      return `${content}${content ? '\n' : ''}${rendered}`;
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
 * call as `<tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>` separated by "\n" (and "\n"
 * after non-empty content), then `<|im_end|>` when the turn stops.
 */
export function renderSampledText(turn: AnswerTurn, options: { thinking: boolean; toolMode: ToolMode }): SampledText {
  const think = options.thinking ? `<think>\n${turn.reasoning ?? ''}\n</think>\n\n` : '';
  const finish = turn.finish ?? 'stop';
  const text = `${think}${answerBody(turn, options.toolMode)}${finish === 'stop' ? IM_END : ''}`;
  return { text, tokenIds: encodeText(text), finish };
}
