// SGLang's context-window refusals (tokenizer_manager._validate_one_request), both answered 400.
import { badRequest } from '../sim-errors.js';

export function checkSglangContextWindow(promptTokens: number, maxNewTokens: number | null | undefined, contextLength: number): void {
  if (promptTokens >= contextLength) {
    throw badRequest(`The input (${promptTokens} tokens) is longer than the model's context length (${contextLength} tokens).`);
  }
  if (maxNewTokens !== null && maxNewTokens !== undefined && promptTokens + maxNewTokens > contextLength) {
    throw badRequest(
      `Requested token count exceeds the model's maximum context length of ${contextLength} tokens. You requested a total of ${promptTokens + maxNewTokens} tokens: ${promptTokens} tokens from the input messages and ${maxNewTokens} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`,
    );
  }
}
