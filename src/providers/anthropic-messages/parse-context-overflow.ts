// Reads the token numbers out of an upstream (vLLM) context-length error message.

/** What an overflow message says; `completionTokens` is absent when the message only counts the prompt. */
export interface ContextOverflow {
  promptTokens: number;
  completionTokens?: number;
  maxContextTokens: number;
}

/*
 * vLLM phrasings seen in the field (the first is current, the others older):
 *   "This model's maximum context length is 16384 tokens. However, you requested 8192 output tokens
 *    and your prompt contains at least 8193 input tokens, for a total of at least 16385 tokens."
 *   "... maximum context length is 32768 tokens. However, you requested 33000 tokens
 *    (32000 in the messages, 1000 in the completion). ..."
 *   "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context length
 *    is 32768 tokens and your request has 32000 input tokens (1000 > 32768 - 32000)."
 *   "... maximum context length is 32768 tokens. However, your request has 40000 input tokens. ..."
 *   "... maximum context length is 32768 tokens. However, your messages resulted in 40000 tokens. ..."
 */
const PATTERNS: ReadonlyArray<{ pattern: RegExp; read: (match: RegExpMatchArray) => ContextOverflow }> = [
  {
    pattern: /maximum context length is (\d+) tokens.*?requested (\d+) output tokens.*?prompt contains (?:at least )?(\d+) input tokens/s,
    read: (m) => ({ maxContextTokens: num(m[1]), completionTokens: num(m[2]), promptTokens: num(m[3]) }),
  },
  {
    pattern: /maximum context length is (\d+) tokens.*?\((\d+) in the messages, (\d+) in the completion\)/s,
    read: (m) => ({ maxContextTokens: num(m[1]), promptTokens: num(m[2]), completionTokens: num(m[3]) }),
  },
  {
    pattern: /is too large: (\d+).*?maximum context length is (\d+) tokens.*?request has (\d+) input tokens/s,
    read: (m) => ({ completionTokens: num(m[1]), maxContextTokens: num(m[2]), promptTokens: num(m[3]) }),
  },
  {
    pattern: /maximum context length is (\d+) tokens.*?(?:request has|messages resulted in|requested) (\d+) (?:input )?tokens/s,
    read: (m) => ({ maxContextTokens: num(m[1]), promptTokens: num(m[2]) }),
  },
];

/** The numbers in `message`, or `undefined` when it is not a recognised overflow message. */
export function parseContextOverflow(message: string): ContextOverflow | undefined {
  for (const { pattern, read } of PATTERNS) {
    const match = message.match(pattern);
    if (match !== null) return read(match);
  }
  return undefined;
}

function num(text: string | undefined): number {
  return Number(text);
}
