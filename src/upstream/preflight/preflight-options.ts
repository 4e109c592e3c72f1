// What a preflight is asked to check: the upstream, the model, the run's sampling, and how the gateway will call it.
import type { SamplingPolicy } from '../../config/sampling-policy.js';
import type { ControlFeature } from '../engines/engine-control.js';
import type { EngineName } from '../engines/engine-name.js';

export interface PreflightOptions {
  /** OpenAI base URL, e.g. `http://127.0.0.1:8000/v1`. */
  upstreamUrl: string;
  /** The server family (`--engine`); detected from the server when absent (vLLM's /version vs SGLang's /get_model_info). */
  engine?: EngineName;
  /** The model to use; required when the server lists several. */
  model?: string;
  sampling: SamplingPolicy;
  /** Start although exported logprobs would not be the sampling distribution's (recorded in the profile). */
  allowLogprobMismatch?: boolean;
  /** Overrides the derived end-of-turn ids. */
  eosTokenIds?: number[];
  /**
   * The gateway captures non-streaming upstream and streams to the client itself, so a server that
   * drops streamed token ids (vLLM 0.10.2–~0.12) is only a warning.
   */
  nonStreamingUpstream?: boolean;
  /**
   * The run sends lineage continuations as token ids (`--token-in`). On SGLang this also needs /tokenize
   * with messages and /generate; a server without chat token ids then only warns.
   */
  tokenIn?: boolean;
  /** Engine-control features the run needs (`polar doctor --control`): a server without one fails (exit 3) with the fix. */
  control?: readonly ControlFeature[];
  /** Upper bound for the whole preflight (default 20 000 ms; a healthy server needs a few seconds). */
  timeoutMs?: number;
  signal?: AbortSignal;
}
