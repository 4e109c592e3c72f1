// The oracle policy: applies a task's gold patch through the harness's OWN shell tool (found from the
// tool schemas the harness declared), then finishes with a short text. With it, a correct container +
// harness + capture pipeline reproduces the gold patch exactly.
import type { Policy, PolicyTurn } from '../policy.js';
import type { SimChatRequest } from '../sim-request.js';
import { findShellTool, shellCall } from './shell-tool.js';

export interface OracleTask {
  instanceId: string;
  problemStatement: string;
  /** The gold patch (a unified git diff). */
  patch: string;
}

export const ORACLE_MARKER = 'polar-oracle';
export const ORACLE_DONE_TEXT = 'I applied the fix for this task.';

/** `tasks` may be a function: the tasks of a long-lived scheduler arrive with its runs (read on each request). */
export function oraclePolicy(tasks: readonly OracleTask[] | (() => readonly OracleTask[])): Policy {
  const current = typeof tasks === 'function' ? tasks : () => tasks;
  // Each task's problem statement, normalized once rather than on every request (again when tasks arrive).
  let known: readonly OracleTask[] = [];
  let needles: { task: OracleTask; needle: string }[] = [];
  return (request) => {
    const now = current();
    if (now !== known || needles.length !== now.length) {
      known = now;
      needles = now.map((task) => ({ task, needle: normalize(task.problemStatement).slice(0, 200) }));
    }
    const alreadyApplied = request.messages.some(
      (message) => message.role === 'assistant' && (message.tool_calls ?? []).some((call) => JSON.stringify(call.function.arguments ?? '').includes(ORACLE_MARKER)),
    );
    if (alreadyApplied) return { content: ORACLE_DONE_TEXT };
    const task = findTask(request, needles);
    if (task === undefined) {
      return { content: `${ORACLE_MARKER}: no task of this run matches the conversation, so there is nothing to apply.` };
    }
    const shell = findShellTool(request.tools ?? []);
    if (shell === undefined) {
      const names = (request.tools ?? []).map((tool) => tool.function.name).join(', ') || 'none';
      return { content: `${ORACLE_MARKER}: the harness declared no shell tool (tools: ${names}); cannot apply the patch.` };
    }
    return { reasoning: `Applying the reference patch of ${task.instanceId}.`, toolCalls: [shellCall(shell, applyPatchCommand(task.patch))] } satisfies PolicyTurn;
  };
}

/** The shell command that writes the patch outside the workspace and applies it in the current folder. */
export function applyPatchCommand(patch: string): string {
  const body = patch.endsWith('\n') ? patch : `${patch}\n`;
  return `cat > /tmp/${ORACLE_MARKER}.patch <<'POLAR_ORACLE_EOF'\n${body}POLAR_ORACLE_EOF\ngit apply --whitespace=nowarn /tmp/${ORACLE_MARKER}.patch && echo ${ORACLE_MARKER}: applied`;
}

function findTask(request: SimChatRequest, needles: readonly { task: OracleTask; needle: string }[]): OracleTask | undefined {
  if (needles.length === 1) return needles[0]?.task;
  // Content parts (Claude Code sends the task as text blocks) are read as their text: JSON would escape the
  // statement's newlines and quotes, and no needle would match.
  const text = (content: SimChatRequest['messages'][number]['content']): string =>
    typeof content === 'string' ? content : (content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  const conversation = normalize(request.messages.map((message) => text(message.content)).join('\n'));
  return needles.find(({ needle }) => conversation.includes(needle))?.task;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
