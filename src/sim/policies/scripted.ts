// The scripted policy: replays turns from a JSON file, turn k for the k-th turn the model takes in the conversation.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../../errors.js';
import { countModelTurns, isErrorTurn, type Policy, type PolicyTurn } from '../policy.js';
import type { SimChatRequest } from '../sim-request.js';
import { findShellTool, shellCall } from './shell-tool.js';

const toolCall = z.object({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) });
const turn = z.union([
  z.strictObject({ error: z.strictObject({ status: z.number().int().min(400).max(599), message: z.string() }) }),
  z.strictObject({
    reasoning: z.string().optional(),
    content: z.string().optional(),
    toolCalls: z.array(toolCall).optional(),
    finish: z.enum(['stop', 'length']).optional(),
  }),
]);
const script = z.strictObject({ turns: z.array(turn), final: turn.optional() });

/** A parsed script: `{ "turns": [PolicyTurn, ...], "final"?: PolicyTurn }`. */
export interface PolicyScript {
  turns: PolicyTurn[];
  final?: PolicyTurn;
}

/** Answered once the script has no turn left, unless the file gives its own `final`. */
export const SCRIPT_EXHAUSTED_TURN: PolicyTurn = { content: 'Done.' };

/** Validates a script object; throws ConfigError naming the bad field. */
export function parsePolicyScript(value: unknown, source: string): PolicyScript {
  const result = script.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.map(String).join('.') || '(root)';
    throw new ConfigError(
      `Scripted policy file ${source} is invalid at ${where}: ${issue?.message ?? 'unknown error'}.`,
      'Expected { "turns": [ { "reasoning"?, "content"?, "toolCalls"?: [{ "name", "arguments": {} }], "finish"? } | { "error": { "status", "message" } } ], "final"?: turn }.',
    );
  }
  return result.data;
}

/** Reads and validates a script file. */
export function loadPolicyScript(file: string): PolicyScript {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`Cannot read scripted policy file ${file}.`, 'Pass scripted:<path to a JSON file>.', { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`Scripted policy file ${file} is not valid JSON.`, undefined, { cause: error });
  }
  return parsePolicyScript(value, file);
}

/**
 * Turn k (0-based) answers the request in which the model already took k turns (countModelTurns: a
 * harness's scripted opening turn, e.g. Qwen Code's, is not one of them). Once the script is
 * exhausted it answers `final` (default SCRIPT_EXHAUSTED_TURN, a short text that ends the agent's loop)
 * rather than repeating the last turn, which could loop a harness forever on a tool call.
 */
export function scriptedPolicy(scriptOrFile: PolicyScript | string): Policy {
  const loaded = typeof scriptOrFile === 'string' ? loadPolicyScript(scriptOrFile) : scriptOrFile;
  return (request) => resolveShellCalls(loaded.turns[countModelTurns(request)] ?? loaded.final ?? SCRIPT_EXHAUSTED_TURN, request);
}

/** The tool name that stands for the harness's own shell tool, so one script drives every harness. */
export const SHELL_TOOL_PLACEHOLDER = '$shell';

/**
 * Replaces `$shell` calls (arguments `{ "command": ..., ...extra }`) by a call of the shell tool the
 * request declares (codex `exec_command` with `cmd`, Claude Code `Bash`, Qwen Code `run_shell_command`, Pi
 * `bash`), its required parameters filled. A request without a shell tool gets a text turn saying so.
 */
function resolveShellCalls(turn: PolicyTurn, request: SimChatRequest): PolicyTurn {
  if (isErrorTurn(turn) || !turn.toolCalls?.some((call) => call.name === SHELL_TOOL_PLACEHOLDER)) return turn;
  const shell = findShellTool(request.tools ?? []);
  if (shell === undefined) return { content: `scripted: the request declares no shell tool for ${SHELL_TOOL_PLACEHOLDER}.` };
  const toolCalls = turn.toolCalls.map((call) => {
    if (call.name !== SHELL_TOOL_PLACEHOLDER) return call;
    const { command, ...extra } = call.arguments;
    return shellCall(shell, String(command ?? ''), extra);
  });
  return { ...turn, toolCalls };
}
