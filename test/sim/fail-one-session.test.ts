// `fail-session=<text>`: of several conversations sending the same first request, exactly the first one fails
// for good (its later turns and their retries answer 500); the others run on. Over a real socket.
import { afterEach, describe, expect, it } from 'vitest';
import { ENGINE_DEAD_MESSAGE, failOneSession } from '../../src/sim/fail-one-session.js';
import { parseSimSpec } from '../../src/sim/parse-sim-spec.js';
import type { Policy } from '../../src/sim/policy.js';
import { PREFLIGHT_HEADER } from '../../src/sim/sim-behaviour.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import type { ChatCompletionWire } from '../../src/upstream/vllm-api-types.js';
import { postJson } from './sim-test-client.js';

const BASH = { type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } };
const answer: Policy = () => ({ content: 'The fix is applied.' });
const TASK = 'Fix add in calc.py [task-b]';

const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function sim(texts: string[]): Promise<SimServer> {
  const server = await startSimServer({ policy: answer, failSessions: texts });
  servers.push(server);
  return server;
}

function firstTurn(task: string): Record<string, unknown>[] {
  return [{ role: 'system', content: 'You are a coding agent.' }, { role: 'user', content: task }];
}

/** The answer's visible text (after the model's empty think block). */
const textOf = (got: { completion: ChatCompletionWire }): string | undefined => got.completion.choices[0]!.message.content?.trim();

async function chat(server: SimServer, messages: Record<string, unknown>[]): Promise<{ status: number; completion: ChatCompletionWire; text: string }> {
  const { status, json, text } = await postJson(`${server.url}/chat/completions`, { messages, tools: [BASH], logprobs: true, return_token_ids: true, max_tokens: 200 });
  return { status, completion: json as ChatCompletionWire, text };
}

/** The next request of a conversation: the assistant's tool call and the tool's output appended. */
function next(messages: Record<string, unknown>[], completion: ChatCompletionWire, output: string): Record<string, unknown>[] {
  const message = completion.choices[0]!.message;
  const call = message.tool_calls![0]!;
  return [...messages, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: output }];
}

describe('fail-session', () => {
  it('fails the first conversation containing the text for good; the same task\'s other conversations run on', async () => {
    const server = await sim(['[task-b]']);
    const first = await chat(server, firstTurn(TASK));
    const second = await chat(server, firstTurn(TASK));
    expect(first.status).toBe(200);
    const call = first.completion.choices[0]!.message.tool_calls![0]!;
    expect(call.function.name).toBe('bash');
    const command = (JSON.parse(call.function.arguments) as { command: string }).command;
    expect(command).toMatch(/^echo polar-sim-failed-session-[0-9a-f]{8}$/);
    // The second conversation, identical so far, is answered by the policy.
    expect(textOf(second)).toBe('The fix is applied.');

    const marker = command.slice('echo '.length);
    const doomed = next(firstTurn(TASK), first.completion, `${marker}\n`);
    for (let attempt = 0; attempt < 3; attempt++) {
      const failed = await chat(server, doomed);
      expect(failed.status).toBe(500);
      expect(failed.text).toContain(ENGINE_DEAD_MESSAGE);
    }
    // A later conversation of the same task, and one of another task, are not touched.
    expect(textOf(await chat(server, firstTurn(TASK)))).toBe('The fix is applied.');
    expect((await chat(server, firstTurn('Another task'))).status).toBe(200);
  });

  it('one conversation per text; a conversation without the text is never failed', async () => {
    const server = await sim(['[task-a]', '[task-b]']);
    const a = await chat(server, firstTurn('first [task-a]'));
    const b = await chat(server, firstTurn('then [task-b]'));
    const markers = [a, b].map((got) => (JSON.parse(got.completion.choices[0]!.message.tool_calls![0]!.function.arguments) as { command: string }).command);
    expect(new Set(markers).size).toBe(2);
    expect(textOf(await chat(server, firstTurn('plain')))).toBe('The fix is applied.');
  });

  it('leaves preflight probes alone, and answers 500 at once when the harness declared no shell tool', async () => {
    const policy = failOneSession(answer, ['[task-b]']);
    const request = { messages: [{ role: 'user' as const, content: TASK }] };
    expect(await policy(request, { headers: { [PREFLIGHT_HEADER]: '1' }, modelName: 'm' })).toEqual({ content: 'The fix is applied.' });
    expect(await policy(request, { headers: {}, modelName: 'm' })).toEqual({ error: { status: 500, message: ENGINE_DEAD_MESSAGE } });
    expect(await policy(request, { headers: {}, modelName: 'm' })).toEqual({ content: 'The fix is applied.' });
  });

  it('is a sim spec option: fail-session=a,b', () => {
    expect(parseSimSpec('sim:oracle?fail-session=[task-a],[task-b]').options).toEqual({ failSessions: ['[task-a]', '[task-b]'] });
  });
});
