// What one step of a batch costs: the GPU profile's roofline implements it (src/sim/gpu/).

/** One request's share of a step. */
export interface BatchEntry {
  /** Tokens computed for it in this step: a prefill chunk, or 1 when it decodes. */
  tokens: number;
  /** Tokens already in its KV cache before this step (what those tokens attend to, besides themselves). */
  context: number;
}

export interface StepCostModel {
  /** Duration of a step over this batch, in ms. */
  stepMs(batch: readonly BatchEntry[]): number;
}
