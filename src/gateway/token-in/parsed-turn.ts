// What the model said in one call, from the relays' parsed answer: the form a lineage keeps per turn.
import type { ParsedModelOutput } from '../../model-format/format-types.js';
import type { CanonicalResponse } from '../../providers/canonical.js';

export function parsedTurn(response: CanonicalResponse): ParsedModelOutput {
  const join = (kind: 'text' | 'reasoning'): string | null => {
    const parts = response.content.filter((part) => part.type === kind).map((part) => (part as { text: string }).text);
    return parts.length > 0 ? parts.join('') : null;
  };
  const toolCalls = response.content.flatMap((part) => (part.type === 'tool-call' ? [{ name: part.name, arguments: part.arguments }] : []));
  return { reasoning: join('reasoning'), content: join('text'), toolCalls, toolCallsFinish: toolCalls.length > 0 };
}
