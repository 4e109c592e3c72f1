// `polar engine resume`: wake the replicas that sleep (not those merely paused), load new weights on every replica,
// then resume every replica.
import type { Command } from 'commander';
import { parseIntegerOption } from '../parse-number-option.js';
import { addEngineOptions, type EngineFlags } from './engine-options.js';
import { addWeightsOptions, type WeightsFlags } from './engine-weights-options.js';

export interface EngineResumeFlags extends EngineFlags, WeightsFlags {
  wake?: boolean;
}

export function registerEngineResume(engine: Command): void {
  const command = addEngineOptions(engine.command('resume').description('Wake (--wake), load new weights on every replica (--weights), then resume every replica'))
    .option('--wake', 'wake every replica first (default: the replicas polar put to sleep, or that say they sleep without being paused)')
    .option('--no-wake', 'never wake: the replicas are only paused (vLLM: its /wake_up would release a keep pause\'s frozen requests on the old weights)')
    .option('--policy-version <n>', 'the policy version of the new weights (SGLang records it as weight_version)', parseIntegerOption('--policy-version', 0));
  addWeightsOptions(command).action(async (flags: EngineResumeFlags) => (await import('./engine-action.js')).engineResumeAction(flags));
}
