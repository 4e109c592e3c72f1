import { describe, expect, it } from 'vitest';
import { applyPatchCommand, ORACLE_DONE_TEXT, oraclePolicy } from '../../src/sim/policies/oracle.js';
import type { SimChatRequest } from '../../src/sim/sim-request.js';

const tasks = [
  { instanceId: 'a__a-1', problemStatement: 'The add function subtracts.', patch: 'diff --git a/x b/x\n' },
  { instanceId: 'b__b-2', problemStatement: 'Greeting is misspelled.', patch: 'diff --git a/y b/y\n' },
];
const context = { headers: {}, modelName: 'm' };
const tool = (name: string, properties: Record<string, unknown>, required: string[]) => ({ type: 'function' as const, function: { name, parameters: { type: 'object', properties, required } } });

function request(tools: ReturnType<typeof tool>[], extra: SimChatRequest['messages'] = []): SimChatRequest {
  return { model: 'm', messages: [{ role: 'user', content: 'Fix this: Greeting is misspelled.' }, ...extra], tools } as SimChatRequest;
}

describe('oracle policy', () => {
  it.each([
    ['codex', tool('exec_command', { cmd: { type: 'string' }, workdir: { type: 'string' } }, ['cmd']), 'cmd'],
    ['claude code', tool('Bash', { command: { type: 'string' }, description: { type: 'string' } }, ['command']), 'command'],
    ['qwen code', tool('run_shell_command', { command: { type: 'string' }, is_background: { type: 'boolean' } }, ['command', 'is_background']), 'command'],
    ['pi', tool('bash', { command: { type: 'string' }, timeout: { type: 'number' } }, ['command']), 'command'],
    [
      'gemini cli',
      tool('run_shell_command', { command: { type: 'string' }, description: { type: 'string' }, dir_path: { type: 'string' }, is_background: { type: 'boolean' }, delay_ms: { type: 'integer' } }, ['command']),
      'command',
    ],
  ])('uses %s’s own shell tool with the matching task’s patch', async (_harness, shell, param) => {
    const turn = await oraclePolicy(tasks)(request([tool('read', { path: { type: 'string' } }, ['path']), shell]), context);
    expect('toolCalls' in turn && turn.toolCalls?.[0]?.name).toBe(shell.function.name);
    const args = 'toolCalls' in turn ? turn.toolCalls![0]!.arguments : {};
    expect(args[param]).toBe(applyPatchCommand('diff --git a/y b/y\n'));
    // Required parameters get a value of their type; optional ones are left out.
    if (shell.function.parameters.required.includes('is_background')) expect(args.is_background).toBe(false);
    else expect(Object.keys(args)).toEqual([param]);
  });

  it('finds the task in content parts too (Claude Code sends text blocks), newlines and quotes included', async () => {
    const multiline = [tasks[0]!, { instanceId: 'c__c-3', problemStatement: 'calc.add is wrong.\n\n`add(2, 3)` should be "5".', patch: 'diff --git a/z b/z\n' }];
    const shell = tool('Bash', { command: { type: 'string' } }, ['command']);
    const blocks = { model: 'm', tools: [shell], messages: [{ role: 'user', content: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }, { type: 'text', text: 'calc.add is wrong.\n\n`add(2, 3)` should be "5".' }] }] } as SimChatRequest;
    const turn = await oraclePolicy(multiline)(blocks, context);
    expect('toolCalls' in turn ? turn.toolCalls![0]!.arguments.command : turn).toBe(applyPatchCommand('diff --git a/z b/z\n'));
  });

  it('finishes with text once its tool call is in the history', async () => {
    const shell = tool('bash', { command: { type: 'string' } }, ['command']);
    const first = await oraclePolicy(tasks)(request([shell]), context);
    const call = 'toolCalls' in first ? first.toolCalls![0]! : undefined;
    const history: SimChatRequest['messages'] = [
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: JSON.stringify(call!.arguments) } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'polar-oracle: applied' },
    ];
    expect(await oraclePolicy(tasks)(request([shell], history), context)).toEqual({ content: ORACLE_DONE_TEXT });
  });

  it('says why when the harness declares no shell tool', async () => {
    const turn = await oraclePolicy(tasks)(request([tool('read', { path: { type: 'string' } }, ['path'])]), context);
    expect('content' in turn && turn.content).toContain('declared no shell tool (tools: read)');
  });

  it('writes the patch with a quoted heredoc outside the workspace', () => {
    expect(applyPatchCommand('a\n$HOME `x`')).toBe("cat > /tmp/polar-oracle.patch <<'POLAR_ORACLE_EOF'\na\n$HOME `x`\nPOLAR_ORACLE_EOF\ngit apply --whitespace=nowarn /tmp/polar-oracle.patch && echo polar-oracle: applied");
  });
});
