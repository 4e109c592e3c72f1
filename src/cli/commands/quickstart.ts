// `polar quickstart`: the README's first command. Builds the example task's image locally, installs the
// Pi harness once, and runs a real rollout with the oracle model: no GPU and no registry needed.
import type { Command } from 'commander';

export function registerQuickstartCommand(program: Command): void {
  program
    .command('quickstart')
    .description('Run the Pi harness on the example task with the built-in oracle model, in Docker, end to end')
    .option('--db <file>', 'SQLite database (default: $POLAR_DB or ./polar.db)')
    .option('--harness <name>', 'harness to run', 'pi')
    .option('--verbose', 'also print the session\'s phase times and the engine totals with what they could not measure')
    .action(async (flags: { db?: string; harness: string; verbose?: boolean }) => (await import('./quickstart-action.js')).quickstartAction(flags));
}
