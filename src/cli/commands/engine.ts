// `polar engine …`: commands about the inference engine itself. A thin group: each subcommand registers
// itself from its own file.
import type { Command } from 'commander';
import { registerEngineCalibrateCommand } from './engine-calibrate.js';

export function registerEngineCommand(program: Command): void {
  const engine = program.command('engine').description('Measure and control the inference engine (vLLM, SGLang, the simulator)');
  registerEngineCalibrateCommand(engine);
}
