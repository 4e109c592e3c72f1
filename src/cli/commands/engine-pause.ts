// `polar engine pause --mode keep|abort`: pause every replica (keep: requests frozen with their KV cache).
import type { Command } from 'commander';
import { addEngineOptions, type EngineFlags } from './engine-options.js';

export interface EnginePauseFlags extends EngineFlags {
  mode: string;
}

export function registerEnginePause(engine: Command): void {
  addEngineOptions(engine.command('pause').description('Pause every replica: keep freezes the requests in flight (they continue after resume), abort ends them'))
    .option('--mode <mode>', 'keep | abort', 'keep')
    .action(async (flags: EnginePauseFlags) => (await import('./engine-action.js')).enginePauseAction(flags));
}
