// `polar gc --hosts <file>` / `--host ssh://…`: on each host that answers, the containers and gateway socket
// folders polar processes of this machine left there (a server killed with -9, a session given up while its
// host was away), as `polar gc` does on the local engine.
import { EXIT_CODES, PolarError } from '../../errors.js';
import { collectGarbage } from '../../runtime/collect-garbage.js';
import { createSshSandboxHost } from '../../runtime/ssh/ssh-sandbox-host.js';
import type { HostFlags } from '../host-options.js';
import { hostSpecsOf } from '../open-host-pool.js';
import { printError, printLine } from '../output.js';

export async function gcHostsAction(flags: HostFlags & { dryRun?: boolean }): Promise<void> {
  let unreachable = 0;
  for (const spec of hostSpecsOf(flags)) {
    const host = createSshSandboxHost(spec);
    try {
      // Joining sweeps the socket folders of polar processes of this machine that are gone.
      if (!flags.dryRun) await host.start();
      else await host.connection.connect();
      const report = await collectGarbage(host.runtime, { dryRun: flags.dryRun });
      for (const decision of report.removed) printLine(`host ${spec.name}: ${flags.dryRun ? 'would remove' : 'removed'} ${decision.container.name} (${decision.reason})`);
      printLine(`host ${spec.name}: ${report.removed.length} container(s) ${flags.dryRun ? 'to remove' : 'removed'}, ${report.kept.length} kept (owned by a live polar process)`);
    } catch (error) {
      unreachable += 1;
      printError(`host ${spec.name}: not reachable, nothing removed (${(error as Error).message})`);
    } finally {
      await host.close();
    }
  }
  if (unreachable > 0) throw new HostsUnreachableError(unreachable);
}

/** Some hosts could not be reached: what they hold was left alone (run gc again when they answer). */
class HostsUnreachableError extends PolarError {
  override name = 'HostsUnreachableError';
  constructor(count: number) {
    super(`${count} host(s) could not be reached; nothing was removed there.`, 'hosts-unreachable', EXIT_CODES.dockerUnavailable, 'Run polar gc --hosts again once they answer (polar doctor --hosts says why they do not).');
  }
}
