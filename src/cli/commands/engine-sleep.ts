// `polar engine sleep --level 1|2`: put every replica to sleep (vLLM /sleep; SGLang /release_memory_occupation).
import type { Command } from 'commander';
import { addEngineOptions, type EngineFlags } from './engine-options.js';

export interface EngineSleepFlags extends EngineFlags {
  level: string;
}

export function registerEngineSleep(engine: Command): void {
  addEngineOptions(engine.command('sleep').description('Put every replica to sleep (level 1 offloads the weights, 2 drops them); send nothing to it until wake'))
    .option('--level <n>', '1 | 2', '1')
    .action(async (flags: EngineSleepFlags) => (await import('./engine-action.js')).engineSleepAction(flags));
}
