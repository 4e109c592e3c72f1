// The simulator's /v1/completions with a token-id prompt (token-in): the policy sees the conversation, ids and logprobs come back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splicePrompt } from '../../src/gateway/token-in/splice-prompt.js';
import { parseModelOutput } from '../../src/model-format/parse-model-output.js';
import type { Policy } from '../../src/sim/policy.js';
import type { SimChatRequest } from '../../src/sim/sim-request.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import type { ChatCompletionWire } from '../../src/upstream/vllm-api-types.js';
import { postJson } from './sim-test-client.js';

const seen: SimChatRequest[] = [];
const policy: Policy = (request) => {
  seen.push(request);
  const step = request.messages.filter((m) => m.role === 'assistant').length;
  return { reasoning: `Step ${step}.`, toolCalls: [{ name: 'bash', arguments: { command: `ls ${step}` } }] };
};
const tools = [{ type: 'function' as const, function: { name: 'bash', description: 'Run', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
const messages: Record<string, unknown>[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: 'Fix it.' },
];

interface CompletionWire {
  object: string;
  choices: { text: string; token_ids: number[] | null; prompt_token_ids: number[] | null; finish_reason: string; logprobs: { tokens: string[]; token_logprobs: number[] } | null }[];
  usage: { prompt_tokens: number; completion_tokens: number };
}

let sim: SimServer;
beforeAll(async () => {
  sim = await startSimServer({ policy, toolFormat: 'qwen3_coder' });
});
afterAll(async () => {
  await sim.close();
});

describe('/v1/completions with token ids', () => {
  it('samples the next turn on the spliced prompt; the policy sees the conversation; streaming gives the same ids', async () => {
    const first = (await postJson(`${sim.url}/chat/completions`, { messages, tools, return_token_ids: true, logprobs: true })).json as ChatCompletionWire;
    const message = first.choices[0]!.message;
    const next = [...messages, { role: 'assistant', content: null, reasoning: message.reasoning, tool_calls: message.tool_calls }, { role: 'tool', tool_call_id: 'x', content: 'a.py' }];
    const root = sim.url.replace(/\/v1$/, '');
    const tokenized = (await postJson(`${root}/tokenize`, { messages: next, tools })).json as { tokens: number[] };
    const spliced = splicePrompt([...first.prompt_token_ids!, ...first.choices[0]!.token_ids!], tokenized.tokens);
    expect(spliced.ok).toBe(true);
    if (!spliced.ok) return;

    const body = { prompt: spliced.promptIds, max_tokens: 500, logprobs: 0, return_token_ids: true };
    const answer = (await postJson(`${sim.url}/completions`, body)).json as CompletionWire;
    const choice = answer.choices[0]!;
    expect(answer.object).toBe('text_completion');
    expect(choice.prompt_token_ids).toEqual(spliced.promptIds);
    expect(choice.token_ids!.at(-1)).toBe(151645);
    expect(choice.logprobs!.token_logprobs).toHaveLength(choice.token_ids!.length);
    expect(answer.usage).toMatchObject({ prompt_tokens: spliced.promptIds.length, completion_tokens: choice.token_ids!.length });
    const parsed = parseModelOutput(choice.text, { thinking: true, toolMode: { kind: 'auto' }, toolFormat: 'qwen3_coder', tools });
    expect(parsed.toolCalls).toEqual([{ name: 'bash', arguments: '{"command": "ls 1"}' }]);
    const request = seen.at(-1)!;
    expect(request.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(request.tools?.map((t) => t.function.name)).toEqual(['bash']);

    const response = await fetch(`${sim.url}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, stream: true }) });
    const events = (await response.text()).split('\n\n').filter((e) => e !== '' && e !== 'data: [DONE]');
    const chunks = events.map((e) => JSON.parse(e.slice('data: '.length)) as CompletionWire);
    expect(chunks.flatMap((c) => c.choices[0]!.token_ids ?? [])).toEqual(choice.token_ids);
    expect(chunks.map((c) => c.choices[0]!.text).join('')).toBe(choice.text);
    expect(chunks[0]!.choices[0]!.prompt_token_ids).toEqual(spliced.promptIds);
  });

  it('answers vLLM-style 400s for bad prompts', async () => {
    expect((await postJson(`${sim.url}/completions`, { prompt: [] })).status).toBe(400);
    expect((await postJson(`${sim.url}/completions`, { prompt: [1], model: 'other' })).status).toBe(404);
  });
});
