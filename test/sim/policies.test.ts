// Policies: noop, scripted (turn = turns the model took), the registry, and step helpers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { createPolicy, knownPolicySpecs } from '../../src/sim/create-policy.js';
import { NOOP_TEXT } from '../../src/sim/policies/noop.js';
import { SCRIPT_EXHAUSTED_TURN, scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { assistantTurnsSinceLastQuery, countAssistantTurns, countModelTurns, type PolicyContext } from '../../src/sim/policy.js';
import { chatRequestFromPrompt } from '../../src/sim/chatml-request.js';
import { decodeTokens } from '../../src/sim/qwen-tokenizer.js';
import { decodePrompts, loadTraceFixture } from '../fixtures/traces/trace-fixture.js';
import type { SimChatRequest, SimMessage } from '../../src/sim/sim-request.js';

const scriptFile = new URL('../fixtures/sim/scripted-tool-then-text.json', import.meta.url).pathname;
const context: PolicyContext = { headers: {}, modelName: 'm' };

function conversation(assistantTurns: number): SimChatRequest {
  const messages: SimMessage[] = [{ role: 'user', content: 'Fix it.' }];
  for (let i = 0; i < assistantTurns; i++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: '{}' } }] });
    messages.push({ role: 'tool', tool_call_id: `c${i}`, content: 'ok' });
  }
  return { messages };
}

describe('scripted policy', () => {
  const policy = createPolicy(`scripted:${scriptFile}`);

  it.each([
    [0, { reasoning: 'I should look at the files.', toolCalls: [{ name: 'bash', arguments: { cmd: 'ls' } }] }],
    [1, { reasoning: 'Found it.', content: 'The bug is in a.py.' }],
    [2, { error: { status: 503, message: 'Simulated overload.' } }],
    [3, { content: 'Nothing more to do.' }],
    [9, { content: 'Nothing more to do.' }],
  ])('after %i assistant turns answers the scripted turn', async (turns, expected) => {
    expect(await policy(conversation(turns), context)).toEqual(expected);
  });

  it('without "final" answers a short closing text once exhausted', async () => {
    const short = scriptedPolicy({ turns: [{ content: 'one' }] });
    expect(await short(conversation(1), context)).toEqual(SCRIPT_EXHAUSTED_TURN);
  });

  describe('Qwen Code, whose conversation opens with a synthetic assistant turn', () => {
    const oneTurn = scriptedPolicy({ turns: [{ toolCalls: [{ name: '$shell', arguments: { command: 'ls' } }] }], final: { content: 'done' } });
    const shell = { type: 'function' as const, function: { name: 'run_shell_command', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } };
    // The opening as Qwen Code 0.15.10 sends it (reference/harness-lab.md §3, the recorded trace below).
    const opening = (): SimChatRequest => ({
      messages: [
        { role: 'system', content: 'You are Qwen Code.' },
        { role: 'user', content: [{ type: 'text', text: 'This is the Qwen Code. We are setting up the context for our chat.' }] },
        { role: 'assistant', content: 'Got it. Thanks for the context!' },
        { role: 'user', content: [{ type: 'text', text: 'Fix calc.py.' }] },
      ],
      tools: [shell],
    });

    it('makes the one scripted tool call first, then answers the final turn', async () => {
      const first = await oneTurn(opening(), context);
      expect(first).toMatchObject({ toolCalls: [{ name: 'run_shell_command', arguments: { command: 'ls' } }] });
      const next = opening();
      next.messages.push({ role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'run_shell_command', arguments: '{"command":"ls"}' } }] });
      next.messages.push({ role: 'tool', tool_call_id: 'c0', content: 'calc.py' });
      expect(countAssistantTurns(next)).toBe(2);
      expect(countModelTurns(next)).toBe(1);
      expect(await oneTurn(next, context)).toEqual({ content: 'done' });
    });

    it('counts the same from the token ids of the recorded first prompt (token-in reads prompts back)', async () => {
      const session = loadTraceFixture('qwen-code').sessions.find((one) => one.scenario === 'scripted')!;
      const [firstPrompt] = decodePrompts(session.calls);
      const request = chatRequestFromPrompt(decodeTokens(firstPrompt!), 'hermes');
      const roles = request.messages.map((message) => message.role);
      expect(roles.slice(-3)).toEqual(['user', 'assistant', 'user']);
      expect(request.messages.at(-2)).toMatchObject({ role: 'assistant', content: null, reasoning: 'Got it. Thanks for the context!' });
      expect(countModelTurns(request)).toBe(0);
      expect(await oneTurn(request, context)).toMatchObject({ toolCalls: [{ name: 'run_shell_command' }] });
    });
  });

  it('rejects malformed script files with the offending field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'polar-sim-'));
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ turns: [{ toolCalls: [{ name: 'x', arguments: 'not an object' }] }] }));
    expect(() => createPolicy(`scripted:${bad}`)).toThrow(ConfigError);
    expect(() => createPolicy(`scripted:${bad}`)).toThrow(/turns\.0/);
    writeFileSync(bad, '{ nope');
    expect(() => createPolicy(`scripted:${bad}`)).toThrow(/not valid JSON/);
    expect(() => createPolicy(`scripted:${join(dir, 'missing.json')}`)).toThrow(/Cannot read/);
  });
});

describe('createPolicy', () => {
  it('builds noop', async () => {
    expect(await createPolicy('noop')(conversation(0), context)).toEqual({ content: NOOP_TEXT });
  });

  it.each(['oracle2', 'constructor', '', 'noop2:x'])('rejects %j and lists the known policies', (spec) => {
    expect(() => createPolicy(spec)).toThrow(ConfigError);
    for (const known of knownPolicySpecs()) expect(() => createPolicy(spec)).toThrow(known);
  });

  it('asks for the file of a scripted policy', () => {
    expect(() => createPolicy('scripted')).toThrow(/needs a file/);
  });
});

describe('step helpers', () => {
  it('count assistant turns overall and since the last real user query', () => {
    const request = conversation(2);
    request.messages.push({ role: 'user', content: '<tool_response>\nx\n</tool_response>' });
    expect(countAssistantTurns(request)).toBe(2);
    expect(assistantTurnsSinceLastQuery(request)).toBe(2);
    request.messages.push({ role: 'user', content: 'New question' }, { role: 'assistant', content: 'a' });
    expect(countAssistantTurns(request)).toBe(3);
    expect(assistantTurnsSinceLastQuery(request)).toBe(1);
  });

  it('count the model\'s turns: its own text turn answered by a user follow-up counts, a harness\'s opening acknowledgement does not', () => {
    const chat: SimChatRequest = { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello!' }, { role: 'user', content: 'Fix it.' }] };
    expect(countModelTurns(chat)).toBe(1);
    const opening: SimChatRequest = { messages: [{ role: 'user', content: 'context' }, { role: 'assistant', content: 'Got it. Thanks for the context!' }, { role: 'user', content: 'Fix it.' }] };
    expect(countModelTurns(opening)).toBe(0);
  });
});
