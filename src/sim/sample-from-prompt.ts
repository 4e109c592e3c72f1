// Token-in sampling shared by the simulator's /v1/completions (vLLM) and /generate (SGLang): the prompt's
// text is read back as a chat request, the policy answers it, and the answer is sampled as the model
// would write it (thinking, tool format, drift keyed by the prompt).
import type { ToolFormat } from '../model-format/format-types.js';
import { chatRequestFromPrompt } from './chatml-request.js';
import { isErrorTurn, type Policy, type PolicyContext } from './policy.js';
import { renderSampledText, type SampledText } from './render-sampled-text.js';
import type { DriftKnobs } from './sim-drift.js';
import { SimHttpError } from './sim-errors.js';

export interface PromptSamplingOptions {
  policy: Policy;
  modelName: string;
  toolFormat: ToolFormat;
  drift?: DriftKnobs | undefined;
}

/** The policy's answer to a decoded prompt, sampled; a failing policy is a 500, an error turn its own status. */
export async function sampleFromPrompt(promptText: string, headers: PolicyContext['headers'], o: PromptSamplingOptions): Promise<SampledText> {
  const chat = chatRequestFromPrompt(promptText, o.toolFormat);
  let turn;
  try {
    turn = await o.policy(chat, { headers, modelName: o.modelName });
  } catch (error) {
    throw new SimHttpError(500, `The simulator policy failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (isErrorTurn(turn)) throw new SimHttpError(turn.error.status, turn.error.message);
  const thinking = chat.chat_template_kwargs?.['enable_thinking'] !== false;
  const toolMode = chat.tools ? ({ kind: 'auto' } as const) : ({ kind: 'none' } as const);
  return renderSampledText(turn, { thinking, toolMode, toolFormat: o.toolFormat, drift: o.drift, driftKey: promptText });
}
