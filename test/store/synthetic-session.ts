// Builds a deterministic multi-turn agent session: each prompt extends the previous prompt plus its sample.
import type { CallRecord } from '../../src/capture/call-record.js';
import { seededRandom } from '../../src/sim/seeded-random.js';

/** mulberry32 (the simulator's): fixtures are identical on every run. */
export const createRandom = seededRandom;

const WORDS = (
  'const let function return if else for while import export from class interface type async await ' +
  'error file path test assert expect value result request response token model session call status ' +
  'the a of to in is that it with as on be this was by not or are at from have an but they which one'
).split(' ');

function words(random: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(random() * WORDS.length)] as string);
  return out.join(' ');
}

function ids(random: () => number, count: number): number[] {
  return Array.from({ length: count }, () => Math.floor(random() * 151_000));
}

const TOOLS = ['shell', 'apply_patch', 'read_file', 'list_dir'].map((name) => ({
  type: 'function',
  function: { name, description: `${name}: ${'Runs the tool in the workspace and returns its output. '.repeat(8)}`, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } } } },
}));

export interface SyntheticTurn {
  record: CallRecord;
}

/**
 * `turns` calls of one session. Turn k's prompt ids are turn k-1's prompt ids ++ its sampled ids ++ a
 * tool-result tail; its request bodies resend every earlier message, with the tools after them.
 */
export function createSyntheticSession(sessionId: number, turns: number, seed = 1): CallRecord[] {
  const random = createRandom(seed);
  const messages: unknown[] = [
    { role: 'system', content: words(random, 1200) },
    { role: 'user', content: words(random, 60) },
  ];
  let prompt = ids(random, 2000);
  const records: CallRecord[] = [];
  for (let turn = 0; turn < turns; turn++) {
    const sampled = ids(random, 100 + Math.floor(random() * 200));
    const logprobs = sampled.map((_, i) => (i % 97 === 5 ? -9999 : Math.fround(-random() * 8)));
    const answer = words(random, 80);
    const clientRequest = Buffer.from(JSON.stringify({ model: 'agent-model', messages, tools: TOOLS, stream: true }));
    const upstreamRequest = Buffer.from(
      JSON.stringify({ model: 'qwen', messages, tools: TOOLS, stream: true, logprobs: true, return_token_ids: true }),
    );
    records.push({
      sessionId,
      protocol: 'openai-chat',
      path: '/v1/chat/completions',
      stream: true,
      status: 'ok',
      error: null,
      httpStatus: 200,
      requestedModel: 'agent-model',
      upstreamModel: 'qwen',
      clientRequest,
      upstreamRequest,
      upstreamResponse: Buffer.from(`data: ${JSON.stringify({ choices: [{ delta: { content: answer } }] })}\n\ndata: [DONE]\n\n`),
      capture: {
        promptTokenIds: prompt,
        tokenIds: sampled,
        logprobs,
        finishReason: 'tool_calls',
        stopReason: null,
        promptTokens: prompt.length,
        completionTokens: sampled.length,
      },
      response: {
        id: `chatcmpl-${turn}`,
        model: 'qwen',
        content: [{ type: 'text', text: answer }],
        stopReason: 'tool-calls',
        rawFinishReason: 'tool_calls',
        usage: { inputTokens: prompt.length, outputTokens: sampled.length },
        created: 1_700_000_000 + turn,
      },
      startedAt: 1_700_000_000_000 + turn * 1000,
      ttfbMs: 12.5,
      latencyMs: 250 + turn,
    });
    messages.push({ role: 'assistant', content: answer, tool_calls: [{ id: `call_${turn}`, type: 'function', function: { name: 'shell', arguments: '{"command":["ls"]}' } }] });
    messages.push({ role: 'tool', tool_call_id: `call_${turn}`, content: words(random, 250) });
    prompt = prompt.concat(sampled, ids(random, 300 + Math.floor(random() * 300)));
  }
  return records;
}
