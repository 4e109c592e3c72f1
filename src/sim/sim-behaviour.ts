// Real-server behaviours the simulator can imitate on request (`polar sim` flags, `sim:<policy>?opt=…`):
// several served models, raw vs processed logprobs, -9999 clamps, the reasoning field name, tool
// calling off, 5xx after N calls, a restart, a stall, and version-dependent shapes (--vllm-compat).
import { DEFAULT_COMPAT, type VllmCompat } from './vllm-compat.js';

export interface SimBehaviour {
  /** Every served model name (`--served-model-name a,b`); the first is the default. */
  modelNames: string[];
  /** `raw` (vLLM's default): logprobs ignore temperature; `processed`: they are the sampling distribution's. */
  logprobsMode: 'raw' | 'processed';
  /** Every Nth sampled token's logprob is vLLM's clamp value -9999 (0 = never). */
  clampLogprobsEvery: number;
  /** Reasoning field(s) in responses (default: the compat version's). */
  reasoningFields: readonly ('reasoning' | 'reasoning_content')[];
  /** False answers tool_choice auto with vLLM's 400 (server started without --enable-auto-tool-choice). */
  toolCalling: boolean;
  /** Chat calls after the first N answer 500 (engine dead); 0 = never. Preflight probes do not count. */
  failAfter: number;
  /** After N chat calls the server goes away for restartMs (connections refused), then comes back. */
  restartAfter: number;
  restartMs: number;
  /** Chat calls after the first N stall (headers, then nothing) for stallMs, or until the client leaves. */
  stallAfter: number;
  stallMs: number;
  /** Answer with this `model` field instead of the requested one (a misrouted server). */
  answerModel: string | null;
  compat: VllmCompat;
}

/** Requests carrying this header are polar's preflight probes: they do not count towards failAfter & co. */
export const PREFLIGHT_HEADER = 'x-polar-preflight';

export function defaultBehaviour(modelName: string): SimBehaviour {
  return {
    modelNames: [modelName],
    logprobsMode: 'raw',
    clampLogprobsEvery: 0,
    reasoningFields: DEFAULT_COMPAT.reasoningFields,
    toolCalling: true,
    failAfter: 0,
    restartAfter: 0,
    restartMs: 0,
    stallAfter: 0,
    stallMs: 0,
    answerModel: null,
    compat: DEFAULT_COMPAT,
  };
}
