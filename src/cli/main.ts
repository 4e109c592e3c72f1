// polar's entry point: the commander program, one command per file, and the single top-level catch.
import { Command, CommanderError } from 'commander';
import { EXIT_CODES, PolarError } from '../errors.js';
import { registerDatasetsCommand } from './commands/datasets.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerEngineCommand } from './commands/engine.js';
import { registerEvalCommand } from './commands/eval.js';
import { registerExportCommand } from './commands/export.js';
import { registerGcCommand } from './commands/gc.js';
import { registerHarnessCommand } from './commands/harness.js';
import { registerProxyCommand } from './commands/proxy.js';
import { registerQuickstartCommand } from './commands/quickstart.js';
import { registerRolloutCommand } from './commands/rollout.js';
import { registerRunsCommand } from './commands/runs.js';
import { registerServeCommand } from './commands/serve.js';
import { registerSessionsCommand } from './commands/sessions.js';
import { registerSimCommand } from './commands/sim.js';
import { registerViewCommand } from './commands/view.js';
import { printError } from './output.js';

export function createProgram(): Command {
  const program = new Command('polar')
    .description('Token-faithful rollouts of unmodified agent harnesses through a capturing model gateway')
    .version('0.1.0')
    .showHelpAfterError()
    .exitOverride();
  registerQuickstartCommand(program);
  registerDemoCommand(program);
  registerRolloutCommand(program);
  registerRunsCommand(program);
  registerEvalCommand(program);
  registerDatasetsCommand(program);
  registerExportCommand(program);
  registerProxyCommand(program);
  registerSimCommand(program);
  registerServeCommand(program);
  registerDoctorCommand(program);
  registerEngineCommand(program);
  registerSessionsCommand(program);
  registerHarnessCommand(program);
  registerGcCommand(program);
  registerViewCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await createProgram().parseAsync(argv);
    return EXIT_CODES.ok;
  } catch (error) {
    return reportError(error);
  }
}

function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    // commander already printed its message (or help/version, which are not errors).
    return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  }
  if (error instanceof PolarError) {
    printError(`polar: ${error.message}`);
    if (error.hint) printError(`hint: ${error.hint}`);
    return error.exitCode;
  }
  printError(`polar: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return EXIT_CODES.generic;
}
