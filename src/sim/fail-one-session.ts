// `fail-session=<text>`: the engine dies for ONE conversation (one session of one task) while the other
// samples of that task run on, so a test gets exactly one infra_error in a group. The samples of a task send
// identical first requests, so the first conversation containing <text> is told apart by what it is answered:
// a call of the harness's own shell tool echoing a marker. Every later request carrying the marker (the
// harness's next turn and all its retries) is answered 500 like `fail-after`; the harness gives up and polar
// ends the session infra_error (upstream_5xx). One conversation per text, ever.
import { randomUUID } from 'node:crypto';
import { findShellTool, shellCall } from './policies/shell-tool.js';
import type { Policy } from './policy.js';
import { PREFLIGHT_HEADER } from './sim-behaviour.js';
import type { SimChatRequest } from './sim-request.js';

/** The body vLLM answers once its engine died (as `fail-after`). */
export const ENGINE_DEAD_MESSAGE = 'EngineCore encountered an issue. See stack trace (above) for the root cause.';

/**
 * Wraps `policy`: for each of `texts`, the first conversation containing it is answered with a shell call
 * echoing a marker, and every request carrying that marker afterwards with a 500. Needs the harness to
 * declare a shell tool (every harness polar runs does); without one the text's first request gets the 500
 * itself. Preflight probes are never touched.
 */
export function failOneSession(policy: Policy, texts: readonly string[]): Policy {
  const armed = new Map(texts.filter((text) => text !== '').map((text) => [text, `polar-sim-failed-session-${randomUUID().slice(0, 8)}`]));
  const fired: string[] = [];
  return (request, context) => {
    if (context.headers[PREFLIGHT_HEADER] !== undefined) return policy(request, context);
    const conversation = conversationText(request);
    if (fired.some((marker) => conversation.includes(marker))) return { error: { status: 500, message: ENGINE_DEAD_MESSAGE } };
    for (const [text, marker] of armed) {
      if (!conversation.includes(text)) continue;
      armed.delete(text);
      const shell = findShellTool(request.tools ?? []);
      if (shell === undefined) return { error: { status: 500, message: ENGINE_DEAD_MESSAGE } };
      fired.push(marker);
      return { toolCalls: [shellCall(shell, `echo ${marker}`)] };
    }
    return policy(request, context);
  };
}

/** Every message's text and tool-call arguments, one after the other. */
function conversationText(request: SimChatRequest): string {
  return request.messages
    .map((message) => {
      const content = typeof message.content === 'string' ? message.content : (message.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
      const calls = (message.tool_calls ?? []).map((call) => (typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments ?? {})));
      return [content, ...calls].join('\n');
    })
    .join('\n');
}
