// `polar gc`: remove every polar container that no live run owns.
import type { Command } from 'commander';
import { collectGarbage } from '../../runtime/collect-garbage.js';
import { createDockerRuntime } from '../../runtime/docker-runtime.js';
import { printLine } from '../output.js';

export function registerGcCommand(program: Command): void {
  program
    .command('gc')
    .description('Remove polar containers whose owning polar process is gone (left by a crash or kill -9)')
    .option('--dry-run', 'only list what would be removed')
    .action(async (flags: { dryRun?: boolean }) => {
      const runtime = createDockerRuntime();
      await runtime.ping();
      const report = await collectGarbage(runtime, { dryRun: flags.dryRun });
      for (const decision of report.removed) {
        printLine(`${flags.dryRun ? 'would remove' : 'removed'} ${decision.container.name} (${decision.reason})`);
      }
      printLine(`${report.removed.length} container(s) ${flags.dryRun ? 'to remove' : 'removed'}, ${report.kept.length} kept (owned by a live polar process)`);
    });
}
