// The simulator's behaviour for the live adapter test: the oracle, except that the first conversation of a
// task marked `delegate` hands the work to a sub-agent first (Claude Code's Agent tool: a separate lineage of
// its own, answered in one call), and the first conversation of a task marked `giveUp` stops without a patch
// (reward 0), so a group has mixed rewards and its advantages are not all 0. Samples of a task send the same
// first request; "first" is whichever arrives first.
import { countAssistantTurns, type Policy } from '../../src/sim/policy.js';
import type { SimChatRequest } from '../../src/sim/sim-request.js';

/** The sub-agent's task: its conversation is recognised by it. */
export const SUBAGENT_PROMPT = 'polar-live-subagent: read calc.py and report what add returns.';
export const SUBAGENT_ANSWER = 'add returns a - b: the sign is wrong.';
export const GIVE_UP_ANSWER = 'I could not find the bug.';

export interface LiveMarkers {
  /** Text of a task's problem statement whose first conversation delegates to a sub-agent. */
  delegate: readonly string[];
  /** Text of a task's problem statement whose first (remaining) conversation gives up. */
  giveUp: readonly string[];
}

export function liveAdapterPolicy(oracle: Policy, markers: LiveMarkers): Policy {
  const used = new Set<string>();
  const take = (kind: string, marker: string, text: string): boolean => {
    const key = `${kind}:${marker}`;
    if (!text.includes(marker) || used.has(key)) return false;
    used.add(key);
    return true;
  };
  return (request, context) => {
    if (request.messages.some((message) => message.role === 'user' && textOf(message).includes(SUBAGENT_PROMPT))) return { content: SUBAGENT_ANSWER };
    if (countAssistantTurns(request) === 0) {
      const conversation = request.messages.map(textOf).join('\n');
      const agentTool = (request.tools ?? []).some((tool) => tool.function.name === 'Agent');
      if (agentTool && markers.delegate.some((marker) => take('delegate', marker, conversation))) {
        return { toolCalls: [{ name: 'Agent', arguments: { description: 'Inspect calc.add', prompt: SUBAGENT_PROMPT, subagent_type: 'general-purpose' } }] };
      }
      if (markers.giveUp.some((marker) => take('give-up', marker, conversation))) return { content: GIVE_UP_ANSWER };
    }
    return oracle(request, context);
  };
}

function textOf(message: SimChatRequest['messages'][number]): string {
  return typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}
