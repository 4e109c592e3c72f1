// `polar engine update-weights`: pause every replica, load the weights on every one, resume every one.
import type { Command } from 'commander';
import { parseIntegerOption } from '../parse-number-option.js';
import { addEngineOptions, type EngineFlags } from './engine-options.js';
import { addWeightsOptions, type WeightsFlags } from './engine-weights-options.js';

export interface EngineUpdateWeightsFlags extends EngineFlags, WeightsFlags {
  pauseMode: string;
  stayPaused?: boolean;
}

export function registerEngineUpdateWeights(engine: Command): void {
  const command = addEngineOptions(engine.command('update-weights').description('Pause every replica, load new weights on every one, then resume every one (each step only after all replicas answered)'))
    .requiredOption('--policy-version <n>', 'the policy version of the new weights', parseIntegerOption('--policy-version', 0))
    .option('--pause-mode <mode>', 'how requests in flight are paused first: keep | abort', 'keep')
    .option('--stay-paused', 'leave the replicas paused after the update (resume later with polar engine resume)');
  addWeightsOptions(command).action(async (flags: EngineUpdateWeightsFlags) => (await import('./engine-action.js')).engineUpdateWeightsAction(flags));
}
