// Upstream HTTP error → the provider-neutral error the client sees and the status the call is recorded with.
import type { CallStatus } from '../capture/call-record.js';
import type { GatewayErrorBody } from '../providers/canonical.js';

export interface ClassifiedError {
  error: GatewayErrorBody;
  status: CallStatus;
}

/**
 * vLLM's context-window messages, newest first. Kept in one tested table (STYLE §6.7): vLLM has no
 * structured error code for this, only text, e.g. "This model's maximum context length is 32768
 * tokens. However, you requested 40000 tokens (39000 in the messages, 1000 in the completion)."
 */
const CONTEXT_OVERFLOW_PATTERNS: { pattern: RegExp; promptGroup?: number; maxGroup?: number }[] = [
  // vLLM <= 0.10: "... However, you requested 40000 tokens (39000 in the messages, 1000 in the completion)."
  { pattern: /maximum context length is (\d+) tokens\. However, you requested (\d+) tokens \((\d+) in the messages/i, maxGroup: 1, promptGroup: 3 },
  // vLLM <= 0.10, prompt alone too long: "... However, you requested 40000 tokens in the messages, ..."
  { pattern: /maximum context length is (\d+) tokens\. However, you requested (\d+) tokens in the messages/i, maxGroup: 1, promptGroup: 2 },
  // vLLM >= 0.11: "... maximum context length is 32768 tokens[.] (However,) your request has 40000 input tokens ..."
  { pattern: /maximum context length is (\d+) tokens.{0,20}?your request has (\d+) input tokens/i, maxGroup: 1, promptGroup: 2 },
  { pattern: /prompt \(length (\d+)\) is longer than the maximum model length of (\d+)/i, promptGroup: 1, maxGroup: 2 },
  // SGLang (tokenizer_manager._validate_one_request): "The input (40000 tokens) is longer than the model's context length (32768 tokens)."
  { pattern: /input \((\d+) tokens\) is longer than the model's context length \((\d+) tokens\)/i, promptGroup: 1, maxGroup: 2 },
  // SGLang, prompt plus max_new_tokens: "Requested token count exceeds the model's maximum context length of 32768 tokens. You
  // requested a total of 40000 tokens: 39000 tokens from the input messages and 1000 tokens for the completion. ..."
  { pattern: /maximum context length of (\d+) tokens\. You requested a total of \d+ tokens: (\d+) tokens from the input/i, maxGroup: 1, promptGroup: 2 },
  { pattern: /maximum context length is (\d+) tokens/i, maxGroup: 1 },
  { pattern: /context length|too many tokens|exceeds the model's maximum/i },
];

/** Extracts the human message from a vLLM (or OpenAI-style) error body. */
export function upstreamErrorMessage(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'object' && typeof parsed.error?.message === 'string') return parsed.error.message;
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 2000) || '(empty body)';
}

export function classifyUpstreamError(httpStatus: number, body: Buffer): ClassifiedError {
  const upstreamMessage = upstreamErrorMessage(body);
  if (httpStatus === 400 || httpStatus === 413 || httpStatus === 422) {
    for (const { pattern, promptGroup, maxGroup } of CONTEXT_OVERFLOW_PATTERNS) {
      const match = pattern.exec(upstreamMessage);
      if (!match) continue;
      const prompt = promptGroup ? match[promptGroup] : undefined;
      const max = maxGroup ? match[maxGroup] : undefined;
      // Claude Code recognises "prompt is too long: N tokens > M maximum" and compacts.
      const message =
        prompt && max
          ? `prompt is too long: ${prompt} tokens > ${max} maximum (upstream: ${upstreamMessage})`
          : `prompt is too long for the model's context window (upstream: ${upstreamMessage})`;
      return { status: 'context_overflow', error: { kind: 'context-overflow', status: 400, message } };
    }
    return {
      status: 'upstream_error',
      error: { kind: 'invalid-request', status: httpStatus, message: `upstream rejected the request: ${upstreamMessage}` },
    };
  }
  if (httpStatus === 429) {
    return { status: 'upstream_error', error: { kind: 'rate-limit', status: 429, message: upstreamMessage } };
  }
  const status = httpStatus >= 500 ? httpStatus : 502;
  return {
    status: 'upstream_error',
    error: { kind: 'upstream-error', status, message: `upstream answered HTTP ${httpStatus}: ${upstreamMessage}` },
  };
}

/**
 * The upstream sent headers, then closed the connection before its answer was complete: the server
 * is up (it answered), so this is an upstream error, not "unavailable".
 */
export function classifyEarlyClose(detail: string): ClassifiedError {
  return {
    status: 'upstream_error',
    error: {
      kind: 'upstream-error',
      status: 502,
      message:
        `upstream closed its answer before it was complete (${detail}). The model server accepted the request ` +
        'and then dropped the connection: check its log for a crash, an out-of-memory kill or a restart.',
    },
  };
}
