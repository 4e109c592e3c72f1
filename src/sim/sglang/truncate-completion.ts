// A simulated completion cut to the tokens the context window leaves (finish_reason `length`).
import type { SimulatedCompletion } from '../simulate-completion.js';

export function truncateCompletion(sim: SimulatedCompletion, budget: number): SimulatedCompletion {
  if (sim.tokenIds.length <= budget) return sim;
  const keep = Math.max(0, budget);
  return {
    ...sim,
    tokenIds: sim.tokenIds.slice(0, keep),
    tokenTexts: sim.tokenTexts.slice(0, keep),
    logprobs: sim.logprobs ? sim.logprobs.slice(0, keep) : null,
    finishReason: 'length',
    stopReason: null,
  };
}
