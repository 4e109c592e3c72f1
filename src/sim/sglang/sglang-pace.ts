// The tokens of an SGLang-mode answer come out of the simulator's generation engine, as the vLLM routes'
// do: a GPU profile's steps or the fixed first-token / per-token timing, pauses, sleeps and weight versions.
import type { GenerationHandle } from '../engine/generation-types.js';
import type { ResolvedOptions } from '../sim-server.js';
import { submitGeneration } from '../submit-generation.js';

/** Submits the planned output; `await handle.next(n)` for the next n tokens as the engine emits them. */
export function startGeneration(o: ResolvedOptions, promptIds: readonly number[], outputIds: readonly number[], finish: 'stop' | 'length', signal: AbortSignal): GenerationHandle {
  return submitGeneration(o.generation, { promptTokenIds: promptIds, outputTokenIds: outputIds, finishReason: finish }, signal);
}
