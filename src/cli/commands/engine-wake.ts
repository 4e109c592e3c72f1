// `polar engine wake`: wake every replica (vLLM /wake_up; SGLang /resume_memory_occupation).
import type { Command } from 'commander';
import { addEngineOptions, type EngineFlags } from './engine-options.js';

export function registerEngineWake(engine: Command): void {
  addEngineOptions(engine.command('wake').description('Wake every replica')).action(async (flags: EngineFlags) => (await import('./engine-action.js')).engineWakeAction(flags));
}
