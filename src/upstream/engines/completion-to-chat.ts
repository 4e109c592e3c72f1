// vLLM /v1/completions answers (token-in) -> the chat.completion / chat.completion.chunk shape the relays read.
import { Transform, type TransformCallback } from 'node:stream';
import type { ParseOptions } from '../../model-format/format-types.js';
import { makeToolCallId, ModelStreamParser } from '../../model-format/model-stream-parser.js';
import { parseModelOutput } from '../../model-format/parse-model-output.js';
import { SseDataParser } from '../sse-line-splitter.js';
import type { ChatCompletionChunkWire, ChatCompletionWire, LogprobEntryWire, UsageWire } from '../vllm-api-types.js';

/** Legacy completions logprobs (`tokens`, `token_logprobs`, `top_logprobs`). */
export interface LegacyLogprobsWire {
  tokens: string[];
  token_logprobs: (number | null)[];
  top_logprobs: (Record<string, number> | null)[] | null;
}

export interface CompletionChoiceWire {
  index: number;
  text: string;
  logprobs: LegacyLogprobsWire | null;
  finish_reason: string | null;
  stop_reason?: string | number | null;
  token_ids?: number[] | null;
  prompt_token_ids?: number[] | null;
}

export interface CompletionWire {
  id: string;
  created: number;
  model: string;
  choices: CompletionChoiceWire[];
  usage?: UsageWire | null;
}

function logprobContent(legacy: LegacyLogprobsWire | null): LogprobEntryWire[] | null {
  if (legacy === null) return null;
  return legacy.tokens.map((token, i) => ({
    token,
    logprob: legacy.token_logprobs[i] ?? 0,
    top_logprobs: Object.entries(legacy.top_logprobs?.[i] ?? {}).map(([alt, logprob]) => ({ token: alt, logprob })),
  }));
}

/** vLLM reports `tool_calls` when the model stopped on its own after tool calls were parsed. */
export function chatFinish(finish: string | null, toolCalls: boolean): string | null {
  return finish === 'stop' && toolCalls ? 'tool_calls' : finish;
}

/** A non-streaming completion as the chat.completion vLLM would have answered for the same tokens. */
export function completionToChat(completion: CompletionWire, options: ParseOptions): ChatCompletionWire {
  const choice = completion.choices[0];
  if (choice === undefined) throw new Error('the completion has no choice');
  const parsed = parseModelOutput(choice.text, options);
  const toolCalls = parsed.toolCalls.map((call) => ({ id: makeToolCallId(), type: 'function' as const, function: { name: call.name, arguments: call.arguments } }));
  return {
    id: completion.id.replace(/^cmpl-/, 'chatcmpl-'),
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: parsed.content, reasoning: parsed.reasoning, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        logprobs: { content: logprobContent(choice.logprobs) },
        finish_reason: chatFinish(choice.finish_reason, parsed.toolCallsFinish),
        stop_reason: choice.stop_reason ?? null,
        token_ids: choice.token_ids ?? null,
      },
    ],
    usage: completion.usage ?? null,
    prompt_token_ids: choice.prompt_token_ids ?? null,
  };
}

/**
 * Rewrites a completions SSE stream into chat.completion.chunk SSE as it arrives (real streaming):
 * each completion chunk becomes one chat chunk with the parser's delta (empty when the parsers hold
 * text back), its token ids and logprobs; the first carries `prompt_token_ids` and the role.
 */
export class CompletionStreamToChat extends Transform {
  private readonly sse = new SseDataParser();
  private readonly parser: ModelStreamParser;
  private first = true;

  constructor(options: ParseOptions) {
    super();
    this.parser = new ModelStreamParser(options);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      const out = this.sse.push(chunk).map((data) => this.convert(data)).join('');
      callback(null, out === '' ? undefined : out);
    } catch (error) {
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    try {
      const out = this.sse.end().map((data) => this.convert(data)).join('');
      callback(null, out === '' ? undefined : out);
    } catch (error) {
      callback(error as Error);
    }
  }

  private convert(data: string): string {
    if (data === '[DONE]') return 'data: [DONE]\n\n';
    let completion: CompletionWire & { error?: unknown };
    try {
      completion = JSON.parse(data) as typeof completion;
    } catch {
      return `data: ${data}\n\n`; // the relay reports the malformed chunk
    }
    if (completion.error !== undefined) return `data: ${data}\n\n`;
    const base = { id: completion.id.replace(/^cmpl-/, 'chatcmpl-'), object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
    const chat: ChatCompletionChunkWire = { ...base, choices: [] };
    if (completion.usage) chat.usage = completion.usage;
    for (const choice of completion.choices ?? []) {
      const finished = choice.finish_reason !== null && choice.finish_reason !== undefined;
      const delta: ChatCompletionChunkWire['choices'][number]['delta'] = { ...(this.parser.push(choice.text ?? '', finished) ?? {}) };
      if (this.first) {
        delta.role = 'assistant';
        if (choice.prompt_token_ids) chat.prompt_token_ids = choice.prompt_token_ids;
        this.first = false;
      }
      if (Object.keys(delta).length === 0) delta.content = '';
      chat.choices.push({
        index: 0,
        delta,
        logprobs: choice.logprobs ? { content: logprobContent(choice.logprobs) } : null,
        finish_reason: finished ? chatFinish(choice.finish_reason, this.parser.toolsStreamed) : null,
        stop_reason: choice.stop_reason ?? null,
        ...(choice.token_ids ? { token_ids: choice.token_ids } : {}),
      });
    }
    return `data: ${JSON.stringify(chat)}\n\n`;
  }
}
