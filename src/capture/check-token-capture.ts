// Decides whether a token capture is training data: ids present and aligned with logprobs and usage.
import type { CallStatus, TokenCaptureLike } from './call-record.js';

export interface CaptureVerdict {
  status: CallStatus;
  error: string | null;
}

export const NO_TOKEN_IDS_MESSAGE =
  'The upstream returned no token ids (prompt_token_ids / choices[0].token_ids), so this call cannot be ' +
  'training data and polar will not re-tokenize text to fill the gap. Fix: serve the model with vLLM >= 0.10.2 ' +
  '(it honours "return_token_ids": true), or point --upstream at such a server.';

export const ENGINE_ABORTED_MESSAGE =
  'The inference engine aborted this request before it finished (finish_reason "abort": a trainer paused generation ' +
  'in abort mode, or put the engine to sleep); the cut-off sample is kept for diagnosis but is never training data, ' +
  'and the session is retried. Pause with mode "keep" (or "hold") to let calls in flight finish.';

/**
 * Contract: `engine_aborted` when the engine ended the request early (finish_reason `abort`), whatever it sent;
 * `ok` only when prompt ids and sampled ids are present, one logprob per sampled id, and
 * the counts equal the upstream's usage when it reported usage (reference/swebench-vllm.md B1.2).
 * Prompt ids still as JSON text count as present; their count is checked once they are parsed.
 */
export function checkTokenCapture(capture: TokenCaptureLike): CaptureVerdict {
  if (capture.finishReason === 'abort') return { status: 'engine_aborted', error: ENGINE_ABORTED_MESSAGE };
  if ((capture.promptTokenIds === null && capture.promptTokenIdsJson === undefined) || capture.tokenIds === null) {
    return { status: 'no_token_ids', error: NO_TOKEN_IDS_MESSAGE };
  }
  const problems: string[] = [];
  if (capture.logprobs === null) problems.push('no logprobs were returned');
  else if (capture.logprobs.length !== capture.tokenIds.length) {
    problems.push(`${capture.logprobs.length} logprobs for ${capture.tokenIds.length} sampled tokens`);
  }
  if (capture.completionTokens !== null && capture.completionTokens !== capture.tokenIds.length) {
    problems.push(`usage.completion_tokens=${capture.completionTokens} but ${capture.tokenIds.length} token ids`);
  }
  // Prompt ids left as JSON text are counted when the recorder parses them (resolvePromptIdsJson).
  if (capture.promptTokens !== null && capture.promptTokenIds !== null && capture.promptTokens !== capture.promptTokenIds.length) {
    problems.push(`usage.prompt_tokens=${capture.promptTokens} but ${capture.promptTokenIds.length} prompt ids`);
  }
  if (problems.length > 0) {
    return {
      status: 'token_mismatch',
      error: `Token capture is inconsistent (${problems.join('; ')}); the call is kept but not trainable.`,
    };
  }
  return { status: 'ok', error: null };
}
