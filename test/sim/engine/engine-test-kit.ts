// Helpers for the engine tests: a small GPU (a few KV blocks) with a transparent step cost, and a synchronous stepper.
import { ContinuousBatchingScheduler, type ContinuousBatchingConfig } from '../../../src/sim/engine/continuous-batching-scheduler.js';
import { GenerationEngine } from '../../../src/sim/engine/generation-engine.js';
import type { GenerationRequest } from '../../../src/sim/engine/generation-types.js';
import type { BatchEntry, StepCostModel } from '../../../src/sim/engine/step-cost.js';
import type { StepPlan } from '../../../src/sim/engine/step-scheduler.js';

/** 1 ms per step + 0.01 ms per token computed + 0.001 ms per token attended: easy to reason about. */
export const LINEAR_COST: StepCostModel = {
  stepMs: (batch: readonly BatchEntry[]) => 1 + batch.reduce((sum, e) => sum + 0.01 * e.tokens + 0.001 * (e.context + e.tokens), 0),
};

export function smallGpu(config: Partial<ContinuousBatchingConfig> = {}): { engine: GenerationEngine; scheduler: ContinuousBatchingScheduler } {
  const scheduler = new ContinuousBatchingScheduler({
    maxNumSeqs: 8,
    maxNumBatchedTokens: 256,
    kvCacheBlocks: 64,
    blockSize: 16,
    prefixCaching: true,
    cost: LINEAR_COST,
    ...config,
  });
  return { engine: new GenerationEngine(scheduler), scheduler };
}

/** `count` distinct token ids starting at `from`. */
export function tokens(count: number, from = 1000): number[] {
  return Array.from({ length: count }, (_, i) => from + i);
}

export function request(prompt: number, output: number, from = 1000): GenerationRequest {
  return { promptTokenIds: tokens(prompt, from), outputTokenIds: tokens(output, from + 50_000) };
}

/** Runs steps until the engine has nothing to do (or `maxSteps`); returns the plans in order. */
export function runToIdle(engine: GenerationEngine, maxSteps = 100_000): StepPlan[] {
  const plans: StepPlan[] = [];
  for (let plan = engine.nextStep(); plan !== null && plans.length < maxSteps; plan = engine.nextStep()) {
    plans.push(plan);
    engine.completeStep(plan);
  }
  return plans;
}

/** Runs exactly `count` steps (fewer if the engine goes idle). */
export function runSteps(engine: GenerationEngine, count: number): StepPlan[] {
  const plans: StepPlan[] = [];
  for (let i = 0; i < count; i++) {
    const plan = engine.nextStep();
    if (!plan) break;
    plans.push(plan);
    engine.completeStep(plan);
  }
  return plans;
}
