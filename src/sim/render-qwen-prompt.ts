// The simulator's prompt: model-format's chat template rendering, tokenised with the real Qwen3 tokenizer; errors as vLLM's 400s.
import { renderChatPromptText, TemplateRenderError, type RenderChatPromptInput } from '../model-format/render-chat-prompt.js';
import { encodeText } from './qwen-tokenizer.js';
import { badRequest } from './sim-errors.js';

export type RenderQwenPromptInput = RenderChatPromptInput;

export interface RenderedPrompt {
  text: string;
  tokenIds: number[];
}

/** The prompt text vLLM would feed the model for these messages; a 400 SimHttpError when it cannot. */
export function renderQwenPromptText(input: RenderQwenPromptInput): string {
  try {
    return renderChatPromptText(input);
  } catch (error) {
    if (error instanceof TemplateRenderError) throw badRequest(error.message, error.param);
    throw error;
  }
}

/** Renders and tokenises the prompt (prompt_token_ids). */
export function renderQwenPrompt(input: RenderQwenPromptInput): RenderedPrompt {
  const text = renderQwenPromptText(input);
  return { text, tokenIds: encodeText(text) };
}
