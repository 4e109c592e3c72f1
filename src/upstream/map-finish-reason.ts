// vLLM finish_reason → canonical StopReason; unknown values become 'other' (the raw value is kept).
import type { StopReason } from '../providers/canonical.js';

export function mapFinishReason(finishReason: string | null | undefined): StopReason {
  switch (finishReason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}
