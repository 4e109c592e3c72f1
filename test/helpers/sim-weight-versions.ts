// The simulator weights (version 0, 1 or 2; -1: none of them) that sampled each token: its raw logprobs are a
// function of position, id and version (src/sim/synthetic-logprobs.ts).
import { sampledLogprob } from '../../src/sim/synthetic-logprobs.js';

export function simWeightVersions(ids: readonly number[], logprobs: readonly number[]): number[] {
  return ids.map((id, i) => [0, 1, 2].find((version) => sampledLogprob(i, id, version) === logprobs[i]) ?? -1);
}
