// Canonical stop reason to Anthropic `stop_reason`.
import type { StopReason } from '../canonical.js';
import type { AnthropicStopReason } from './anthropic-api-types.js';

/**
 * `hasToolCalls`: the turn contains tool_use blocks. Anthropic always says `tool_use` then, and
 * some vLLM tool parsers report `stop` for a turn with tool calls; Claude Code only runs the tools
 * of a `tool_use` turn. The matched stop string is not in the canonical model, so
 * `stop_sequence` is never reported; `other` (an unknown upstream reason) becomes `end_turn`.
 */
export function mapAnthropicStopReason(reason: StopReason, hasToolCalls: boolean): AnthropicStopReason {
  switch (reason) {
    case 'stop':
    case 'other':
      return hasToolCalls ? 'tool_use' : 'end_turn';
    case 'tool-calls':
      return 'tool_use';
    case 'length':
      return 'max_tokens';
    case 'content-filter':
      return 'refusal';
    default:
      return assertNever(reason);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected stop reason ${String(value)}`);
}
