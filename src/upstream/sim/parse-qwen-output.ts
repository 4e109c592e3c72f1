// Sampled Qwen3 text -> reasoning, content and tool calls, as vLLM's qwen3 reasoning parser and hermes tool parser do.
import { dumpsPyJson, parsePyJson, type PyJson } from './python-json.js';
import type { ToolMode } from './sim-request.js';

export interface ParsedToolCall {
  name: string;
  /** Python json.dumps(arguments, ensure_ascii=False): `{"a": 1, "b": "x"}`. */
  arguments: string;
}

export interface ParsedQwenOutput {
  reasoning: string | null;
  content: string | null;
  toolCalls: ParsedToolCall[];
  /** Whether vLLM reports finish_reason `tool_calls` (auto with calls, or required) when it stopped. */
  toolCallsFinish: boolean;
}

export const THINK_START = '<think>';
export const THINK_END = '</think>';
export const TOOL_CALL_START = '<tool_call>';
export const TOOL_CALL_END = '</tool_call>';

/**
 * vLLM's Qwen3ReasoningParser.extract_reasoning: drop a leading `<think>`, split at `</think>`. Without
 * `</think>` the output was cut while thinking (all reasoning), unless thinking was switched off.
 */
export function splitReasoning(text: string, thinking: boolean): { reasoning: string | null; content: string | null } {
  const start = text.indexOf(THINK_START);
  const rest = start >= 0 ? text.slice(start + THINK_START.length) : text;
  const end = rest.indexOf(THINK_END);
  if (end >= 0) {
    const content = rest.slice(end + THINK_END.length);
    return { reasoning: rest.slice(0, end), content: content === '' ? null : content };
  }
  if (!thinking) return { reasoning: null, content: rest };
  return { reasoning: rest, content: null };
}

function asDict(value: PyJson): Map<string, PyJson> | undefined {
  return value.type === 'dict' ? value.entries : undefined;
}

/** Hermes2ProToolParser.extract_tool_calls: every `<tool_call>{json}</tool_call>` or none at all. */
function extractHermes(content: string): { calls: ParsedToolCall[]; content: string | null } | undefined {
  const start = content.indexOf(TOOL_CALL_START);
  if (start < 0) return undefined;
  const calls: ParsedToolCall[] = [];
  const pattern = /<tool_call>([\s\S]*?)<\/tool_call>|<tool_call>([\s\S]*)/g;
  try {
    for (const match of content.matchAll(pattern)) {
      const call = asDict(parsePyJson(match[1] ?? match[2] ?? ''));
      const name = call?.get('name');
      const args = call?.get('arguments');
      if (!name || name.type !== 'str' || !args) return undefined;
      calls.push({ name: name.value, arguments: dumpsPyJson(args) });
    }
  } catch {
    return undefined;
  }
  const before = content.slice(0, start);
  return { calls, content: before === '' ? null : before };
}

/** tool_choice "required": guided JSON `[{"name": ..., "parameters": {...}}, ...]`. */
function extractRequired(content: string): ParsedToolCall[] | undefined {
  try {
    const list = parsePyJson(content);
    if (list.type !== 'list') return undefined;
    const calls: ParsedToolCall[] = [];
    for (const item of list.items) {
      const dict = asDict(item);
      const name = dict?.get('name');
      if (!name || name.type !== 'str') return undefined;
      calls.push({ name: name.value, arguments: dumpsPyJson(dict?.get('parameters') ?? { type: 'null' }) });
    }
    return calls;
  } catch {
    return undefined;
  }
}

/**
 * Parses the sampled text (the EOS token already removed, as vLLM's detokenizer does) into the
 * message vLLM returns for `--reasoning-parser qwen3 --tool-call-parser hermes`. Notes: vLLM does not
 * trim, so content after `</think>` keeps its leading "\n\n"; content before a tool call is kept
 * (often just "\n\n"); an unparsable tool call leaves the raw text in content.
 */
export function parseQwenOutput(text: string, options: { thinking: boolean; toolMode: ToolMode }): ParsedQwenOutput {
  const { reasoning, content } = splitReasoning(text, options.thinking);
  const mode = options.toolMode;
  switch (mode.kind) {
    case 'none':
      return { reasoning, content, toolCalls: [], toolCallsFinish: false };
    case 'auto': {
      const hermes = extractHermes(content ?? '');
      if (!hermes) return { reasoning, content, toolCalls: [], toolCallsFinish: false };
      return { reasoning, content: hermes.content, toolCalls: hermes.calls, toolCallsFinish: hermes.calls.length > 0 };
    }
    case 'named':
      return {
        reasoning,
        content: '',
        toolCalls: [{ name: mode.name, arguments: (content ?? '').trim() }],
        toolCallsFinish: false,
      };
    case 'required': {
      const calls = extractRequired((content ?? '').trim());
      if (!calls) return { reasoning, content, toolCalls: [], toolCallsFinish: false };
      return { reasoning, content: '', toolCalls: calls, toolCallsFinish: true };
    }
    default: {
      const never: never = mode;
      return never;
    }
  }
}
