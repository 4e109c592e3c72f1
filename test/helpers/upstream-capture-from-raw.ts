// Recomputes the token capture from the upstream bytes a call stored, independently of the gateway's
// own decoder, so tests can check "stored ids and logprobs == what the upstream returned".
import type { ChatCompletionChunkWire, ChatCompletionWire } from '../../src/upstream/vllm-api-types.js';

export interface RawCapture {
  promptTokenIds: number[] | null;
  tokenIds: number[] | null;
  logprobs: number[] | null;
}

export function captureFromUpstreamBytes(bytes: Buffer, stream: boolean): RawCapture {
  const text = bytes.toString('utf8');
  if (!stream) {
    const body = JSON.parse(text) as ChatCompletionWire;
    const choice = body.choices[0];
    return {
      promptTokenIds: body.prompt_token_ids ?? null,
      tokenIds: choice?.token_ids ?? null,
      logprobs: choice?.logprobs?.content?.map((entry) => entry.logprob) ?? null,
    };
  }
  let promptTokenIds: number[] | null = null;
  let tokenIds: number[] | null = null;
  let logprobs: number[] | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6)) as ChatCompletionChunkWire;
    if (chunk.prompt_token_ids) (promptTokenIds ??= []).push(...chunk.prompt_token_ids);
    for (const choice of chunk.choices) {
      if (choice.token_ids) (tokenIds ??= []).push(...choice.token_ids);
      if (choice.logprobs?.content) (logprobs ??= []).push(...choice.logprobs.content.map((entry) => entry.logprob));
    }
  }
  return { promptTokenIds, tokenIds, logprobs };
}
