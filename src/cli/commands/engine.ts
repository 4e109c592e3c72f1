// `polar engine`: drive the inference engine(s) directly, for scripts (the same control `polar serve` uses
// around a weight sync). A thin group: each subcommand registers itself from its own file.
import type { Command } from 'commander';
import { registerEngineCalibrateCommand } from './engine-calibrate.js';
import { registerEnginePause } from './engine-pause.js';
import { registerEngineResume } from './engine-resume.js';
import { registerEngineSleep } from './engine-sleep.js';
import { registerEngineStatus } from './engine-status.js';
import { registerEngineUpdateWeights } from './engine-update-weights.js';
import { registerEngineWake } from './engine-wake.js';

export function registerEngineCommand(program: Command): Command {
  const engine = program.command('engine').description('Measure and control the inference engine(s) directly: status, pause, resume, sleep, wake, update-weights (every replica, in order), calibrate');
  registerEngineStatus(engine);
  registerEnginePause(engine);
  registerEngineResume(engine);
  registerEngineSleep(engine);
  registerEngineWake(engine);
  registerEngineUpdateWeights(engine);
  registerEngineCalibrateCommand(engine);
  return engine;
}
