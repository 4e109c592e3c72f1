// `--vllm-compat <version>`: which of vLLM's version-dependent behaviours the simulator imitates
// (reference/vllm-conformance.md table A; release boundaries are approximate where marked there).
import { ConfigError } from '../errors.js';

export type ContextErrorWording = 'legacy' | 'v0.11' | 'new';

export interface VllmCompat {
  /** What `/version` reports. */
  version: string;
  /** A1: 0.10.2 to ~0.12 skip a streamed chunk (ids and logprobs included) while a parser holds text back. */
  dropHeldBackChunks: boolean;
  /** A2: the reasoning field(s) in responses. */
  reasoningFields: readonly ('reasoning' | 'reasoning_content')[];
  /** A3: which assistant fields the chat template gets on input ('none': reasoning in history is dropped). */
  reasoningInput: 'none' | 'both' | 'reasoning';
  /** A4: non-streaming output cut while thinking (no `</think>`) comes back as content. */
  truncatedThinkingAsContent: boolean;
  /** A7: streamed finish_reason for a named tool_choice. */
  namedToolFinish: 'tool_calls' | 'stop';
  /**
   * A6: which streamed finishes become `tool_calls` once tool-call pieces were streamed (auto/required tool
   * choice). `any` (vLLM 055e47c chat_completion_stream_generator: `if tools_streamed[i] and not
   * tool_choice_function_name: finish_reason_ = "tool_calls"`; V102 and NEW alike): abort and length too, so a
   * pause abort mid tool call ends in `tool_calls`. `stop`: only a natural stop (the rule at vLLM 006c49d, whose
   * release is not known; the simulator's behaviour before, and SGLang's).
   */
  streamedToolFinish: 'any' | 'stop';
  /** A9: context-overflow wording. */
  contextError: ContextErrorWording;
  /** /metrics also carries vllm:gpu_cache_usage_perc & co (deprecated in 0.9.2, hidden from 0.11). */
  legacyCacheMetricNames: boolean;
}

/** The simulator without `--vllm-compat`: the newest behaviour, except the 0.11 overflow wording. */
export const DEFAULT_COMPAT: VllmCompat = {
  version: '0.11.0-polar-sim',
  dropHeldBackChunks: false,
  reasoningFields: ['reasoning'],
  reasoningInput: 'both',
  truncatedThinkingAsContent: false,
  namedToolFinish: 'stop',
  streamedToolFinish: 'any',
  contextError: 'v0.11',
  legacyCacheMetricNames: false,
};

function parseVersion(text: string): [number, number, number] {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!match) {
    throw new ConfigError(`--vllm-compat "${text}" is not a vLLM version`, 'Use e.g. --vllm-compat 0.10.2, 0.11.0, 0.12.0 or 0.17.0.');
  }
  return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
}

function before(v: [number, number, number], major: number, minor: number, patch = 0): boolean {
  const [a, b, c] = v;
  return a !== major ? a < major : b !== minor ? b < minor : c < patch;
}

/** The behaviours of vLLM `<version>` (e.g. `0.10.2`, `0.12.0`), by the boundaries of table A. */
export function compatFor(versionText: string): VllmCompat {
  const v = parseVersion(versionText);
  if (before(v, 0, 10, 2)) {
    throw new ConfigError(`--vllm-compat ${versionText}: polar needs vLLM >= 0.10.2 (return_token_ids)`, 'Use --no-token-ids to imitate an older server.');
  }
  return {
    version: `${versionText.replace(/^v/, '')}-polar-sim`,
    // #29074 (2025-12-05): first in about 0.13.
    dropHeldBackChunks: before(v, 0, 13),
    // #27752 (2025-11-08) added `reasoning` (~0.11.1); #33402 (2026-01-30) removed `reasoning_content` (~0.16).
    reasoningFields: before(v, 0, 11, 1) ? ['reasoning_content'] : before(v, 0, 16) ? ['reasoning', 'reasoning_content'] : ['reasoning'],
    // #28531 (2025-11-13) started reading reasoning on input (~0.12); the newest reads only `reasoning`.
    reasoningInput: before(v, 0, 12) ? 'none' : before(v, 0, 16) ? 'both' : 'reasoning',
    // #35230 (2026-02-26): truncated thinking counts as reasoning from ~0.17.
    truncatedThinkingAsContent: before(v, 0, 17),
    namedToolFinish: before(v, 0, 11) ? 'tool_calls' : 'stop',
    // V102 (auto_tools_called) and NEW alike replace whatever ended the request.
    streamedToolFinish: 'any',
    // The VLLMValidationError wording (renderers/params.py) of the newest versions, from ~0.16.
    contextError: before(v, 0, 16) ? 'v0.11' : 'new',
    // loggers.py: "Deprecated in 0.9.2 ... With 0.11.x you can enable with --show-hidden-metrics-for-version=0.10".
    legacyCacheMetricNames: before(v, 0, 11),
  };
}
