// `polar doctor --hosts <file>` / `--host ssh://…`: each host's admission check alone (SSH, host key, engine,
// architecture, disk, socket forwarding, tools, images), a table per host with the fix of every failure.
import { DockerUnavailableError } from '../../errors.js';
import { localEngineId } from '../../runtime/docker-runtime.js';
import { engineArchitecture } from '../../runtime/ssh/check-ssh-host.js';
import { createSshSandboxHost } from '../../runtime/ssh/ssh-sandbox-host.js';
import { describeHostSpec } from '../../config/hosts-file.js';
import { flagSharedEngines, type HostCheck } from '../../runtime/sandbox-host.js';
import type { HostFlags } from '../host-options.js';
import { hostSpecsOf } from '../open-host-pool.js';
import { printJson, printLine, printTable } from '../output.js';

export async function doctorHostsAction(flags: HostFlags & { json?: boolean; image?: string[] }): Promise<void> {
  const specs = hostSpecsOf(flags);
  const localId = await localEngineId();
  const reports = await Promise.all(
    specs.map(async (spec) => {
      const host = createSshSandboxHost(spec, { readyTimeoutMs: 10_000 });
      try {
        const checks = await host.check({ architecture: engineArchitecture(), localEngineId: localId, ...(flags.image !== undefined ? { images: flags.image } : {}) });
        return { spec, checks };
      } finally {
        await host.close();
      }
    }),
  );
  flagSharedEngines(reports.map(({ spec, checks }) => ({ name: spec.name, checks })));
  if (flags.json) {
    printJson({ hosts: reports.map(({ spec, checks }) => ({ ...describeHostSpec(spec), admitted: checks.every((check) => check.ok), checks })) });
  } else {
    for (const { spec, checks } of reports) {
      const admitted = checks.every((check) => check.ok);
      printLine(`host ${spec.name} (${describeHostSpec(spec).ssh}): ${admitted ? 'admitted' : 'NOT admitted'}`);
      printTable(['check', 'result', 'detail'], checks.map((check) => [check.name, result(check), check.detail]));
      for (const check of checks) if (check.fix !== undefined && (!check.ok || check.warning === true)) printLine(`  fix (${check.name}): ${check.fix}`);
      printLine('');
    }
  }
  const refused = reports.filter(({ checks }) => checks.some((check) => !check.ok));
  if (refused.length > 0) {
    const first = refused[0]?.checks.find((check) => !check.ok);
    throw new DockerUnavailableError(`${refused.length} of ${reports.length} host(s) not admitted (${refused.map(({ spec }) => spec.name).join(', ')}): ${first?.name}: ${first?.detail}`);
  }
}

function result(check: HostCheck): string {
  return !check.ok ? 'FAIL' : check.warning === true ? 'warn' : 'ok';
}
