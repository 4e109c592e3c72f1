// The harness's own shell tool, found from the tool schemas it declared, and a call of it with every required parameter filled.
import type { PolicyToolCall } from '../policy.js';
import type { SimChatRequest } from '../sim-request.js';

/** Shell tools of the harnesses polar knows, best first. */
const SHELL_TOOLS = ['exec_command', 'Bash', 'run_shell_command', 'bash', 'shell'];
const COMMAND_PARAMS = ['cmd', 'command'];

type ToolDeclaration = NonNullable<SimChatRequest['tools']>[number];

export interface ShellTool {
  name: string;
  commandParam: string;
  parameters: Record<string, unknown>;
}

function rank(name: string): number {
  const index = SHELL_TOOLS.indexOf(name);
  return index === -1 ? Number.MAX_SAFE_INTEGER : index;
}

/** The best shell-like tool that takes a `cmd` or `command` parameter, if the harness declared one. */
export function findShellTool(tools: readonly ToolDeclaration[]): ShellTool | undefined {
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

/**
 * A call of `tool` running `command`; `extra` arguments are kept when the tool declares them, and every
 * other REQUIRED parameter gets a value of its declared type.
 */
export function shellCall(tool: ShellTool, command: string, extra: Record<string, unknown> = {}): PolicyToolCall {
  const properties = (tool.parameters.properties ?? {}) as Record<string, { type?: unknown; default?: unknown }>;
  const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
  const args: Record<string, unknown> = { [tool.commandParam]: command };
  for (const [name, value] of Object.entries(extra)) if (name in properties && !(name in args)) args[name] = value;
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
