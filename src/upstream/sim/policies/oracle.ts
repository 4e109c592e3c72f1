// The oracle policy: applies a task's gold patch through the harness's OWN shell tool (found from the
// tool schemas the harness declared), then finishes with a short text. With it, a correct container +
// harness + capture pipeline reproduces the gold patch exactly.
import type { PolicyToolCall, Policy, PolicyTurn } from '../policy.js';
import type { SimChatRequest } from '../sim-request.js';

export interface OracleTask {
  instanceId: string;
  problemStatement: string;
  /** The gold patch (a unified git diff). */
  patch: string;
}

/** Shell tools of the harnesses polar knows, best first. */
const SHELL_TOOLS = ['exec_command', 'Bash', 'run_shell_command', 'bash', 'shell'];
const COMMAND_PARAMS = ['cmd', 'command'];
export const ORACLE_MARKER = 'polar-oracle';
export const ORACLE_DONE_TEXT = 'I applied the fix for this task.';

type ToolDeclaration = NonNullable<SimChatRequest['tools']>[number];

interface ShellTool {
  name: string;
  commandParam: string;
  parameters: Record<string, unknown>;
}

export function oraclePolicy(tasks: readonly OracleTask[]): Policy {
  // Each task's problem statement, normalized once rather than on every request.
  const needles = tasks.map((task) => ({ task, needle: normalize(task.problemStatement).slice(0, 200) }));
  return (request) => {
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
  const conversation = normalize(request.messages.map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content ?? ''))).join('\n'));
  return needles.find(({ needle }) => conversation.includes(needle))?.task;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function findShellTool(tools: readonly ToolDeclaration[]): ShellTool | undefined {
  const candidates = [...tools].sort((a, b) => rank(a.function.name) - rank(b.function.name));
  for (const tool of candidates) {
    if (rank(tool.function.name) === Number.MAX_SAFE_INTEGER && !/shell|bash|exec/i.test(tool.function.name)) continue;
    const parameters = (tool.function.parameters ?? {}) as Record<string, unknown>;
    const properties = (parameters.properties ?? {}) as Record<string, unknown>;
    const commandParam = COMMAND_PARAMS.find((name) => name in properties);
    if (commandParam) return { name: tool.function.name, commandParam, parameters };
  }
  return undefined;
}

function rank(name: string): number {
  const index = SHELL_TOOLS.indexOf(name);
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
}

/** Fills the command and every other REQUIRED parameter with a value of its declared type. */
function shellCall(tool: ShellTool, command: string): PolicyToolCall {
  const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: unknown; default?: unknown }>;
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
  const args: Record<string, unknown> = { [tool.commandParam]: command };
  for (const name of required) {
    if (name in args) continue;
    const schema = properties[name] ?? {};
    if (schema.default !== undefined) args[name] = schema.default;
    else if (schema.type === 'boolean') args[name] = false;
    else if (schema.type === 'number' || schema.type === 'integer') args[name] = 120_000;
    else args[name] = 'Apply the reference patch';
  }
  return { name: tool.name, arguments: args };
}
