// `polar engine status`: what each replica offers (pause keep/abort, sleep, weight updates) and says of itself.
import type { Command } from 'commander';
import { addEngineOptions, type EngineFlags } from './engine-options.js';

export function registerEngineStatus(engine: Command): void {
  addEngineOptions(engine.command('status').description('Every replica\'s control features (and how to enable the missing ones) and what it says of itself (paused, sleeping, weight version)')).action(
    async (flags: EngineFlags) => (await import('./engine-action.js')).engineStatusAction(flags),
  );
}
