// The canned vLLM answer the benchmark upstream serves: a chat.completion with token ids and
// logprobs, and the same completion as the SSE chunk sequence vLLM streams.
import type { ChatCompletionChunkWire, ChatCompletionWire, LogprobEntryWire, ModelListWire, UsageWire } from '../../src/upstream/vllm-api-types.js';

export const FAKE_MODEL = 'bench/qwen3-8b';
export const PROMPT_TOKENS = 1500;

/** 48 sampled tokens: an agent's short reply before its next tool call. */
const SAMPLED_TEXT = [
  'The', ' failing', ' test', ' calls', ' `', 'parse', '_header', '`', ' with', ' an', ' empty', ' line', ',',
  ' which', ' returns', ' `', 'None', '`', ' instead', ' of', ' raising', ' `', 'Value', 'Error', '`.', ' I',
  ' will', ' add', ' an', ' explicit', ' check', ' at', ' the', ' top', ' of', ' the', ' function', ' and',
  ' rerun', ' the', ' tests', ' in', ' `', 'tests', '/', 'test', '_parser', '.py`',
];

/** Deterministic pseudo-random ids in the Qwen3 vocabulary range. */
function tokenIds(count: number, seed: number): number[] {
  let state = seed >>> 0;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    ids.push(state % 151_643);
  }
  return ids;
}

export interface FakeCompletionParts {
  promptTokenIds: number[];
  tokenIds: number[];
  texts: string[];
  logprobs: LogprobEntryWire[];
  usage: UsageWire;
}

/** `promptTokens`: how many prompt ids the answer carries (a real server returns one per prompt token). */
export function fakeCompletionParts(promptTokens = PROMPT_TOKENS): FakeCompletionParts {
  const texts = SAMPLED_TEXT;
  const logprobs = texts.map((token, i): LogprobEntryWire => ({
    token,
    // vLLM computes logprobs in float32 and prints them as Python floats: exact float32 values.
    logprob: Math.fround(-((i * 37) % 11) * 0.0731 - 0.00012),
    bytes: [...Buffer.from(token, 'utf8')],
    top_logprobs: [],
  }));
  const sampled = tokenIds(texts.length, 7);
  return {
    promptTokenIds: tokenIds(promptTokens, 42),
    tokenIds: sampled,
    texts,
    logprobs,
    usage: { prompt_tokens: promptTokens, completion_tokens: sampled.length, total_tokens: promptTokens + sampled.length },
  };
}

const IDENTITY = { id: 'chatcmpl-bench0000000000000000', created: 1_767_225_600, model: FAKE_MODEL };

export function fakeChatCompletion(parts: FakeCompletionParts = fakeCompletionParts()): ChatCompletionWire {
  return {
    ...IDENTITY,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: parts.texts.join(''), reasoning: null, tool_calls: [] },
        logprobs: { content: parts.logprobs },
        finish_reason: 'stop',
        stop_reason: null,
        token_ids: parts.tokenIds,
      },
    ],
    usage: parts.usage,
    prompt_logprobs: null,
    prompt_token_ids: parts.promptTokenIds,
  };
}

/** Role + prompt ids, one chunk per sampled token, the finish chunk, then the usage chunk. */
export function fakeChatCompletionChunks(parts: FakeCompletionParts = fakeCompletionParts()): ChatCompletionChunkWire[] {
  const base = { ...IDENTITY, object: 'chat.completion.chunk' as const };
  const chunks: ChatCompletionChunkWire[] = [
    {
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      prompt_token_ids: parts.promptTokenIds,
    },
  ];
  parts.texts.forEach((text, i) => {
    const logprob = parts.logprobs[i];
    chunks.push({
      ...base,
      choices: [
        {
          index: 0,
          delta: { content: text },
          logprobs: { content: logprob ? [logprob] : [] },
          finish_reason: null,
          token_ids: parts.tokenIds.slice(i, i + 1),
        },
      ],
    });
  });
  chunks.push({ ...base, choices: [{ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'stop', stop_reason: null }] });
  chunks.push({ ...base, choices: [], usage: parts.usage });
  return chunks;
}

/** The SSE frames as written to the wire, ending with `data: [DONE]`. */
export function fakeSseFrames(chunks: readonly ChatCompletionChunkWire[] = fakeChatCompletionChunks()): Buffer[] {
  return [...chunks.map((chunk) => Buffer.from(`data: ${JSON.stringify(chunk)}\n\n`)), Buffer.from('data: [DONE]\n\n')];
}

export function fakeModelList(): ModelListWire {
  return {
    object: 'list',
    data: [{ id: FAKE_MODEL, object: 'model', created: IDENTITY.created, owned_by: 'vllm', root: FAKE_MODEL, max_model_len: 40_960 }],
  };
}
