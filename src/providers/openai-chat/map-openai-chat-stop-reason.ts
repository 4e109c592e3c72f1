// Canonical StopReason to an OpenAI chat `finish_reason`.
import type { StopReason } from '../canonical.js';
import type { ChatFinishReasonWire } from './openai-chat-api-types.js';

/** `other` passes the upstream value through (e.g. vLLM `abort`), or `stop` when there is none. */
export function mapOpenAIChatStopReason(stopReason: StopReason, rawFinishReason: string | null): ChatFinishReasonWire {
  switch (stopReason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool-calls':
      return 'tool_calls';
    case 'content-filter':
      return 'content_filter';
    case 'other':
      return rawFinishReason ?? 'stop';
    default: {
      const unreachable: never = stopReason;
      return String(unreachable);
    }
  }
}
