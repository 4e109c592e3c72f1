// Opens the hosts of --hosts/--host (loaded only by the commands that run with them; the flags are host-options.ts).
import { resolveHostSpecs, type HostSpec } from '../config/hosts-file.js';
import { HostPool, requireAdmitted } from '../rollout/hosts/host-pool.js';
import { localEngineId } from '../runtime/docker-runtime.js';
import type { HostCheck } from '../runtime/sandbox-host.js';
import { engineArchitecture } from '../runtime/ssh/check-ssh-host.js';
import type { HostFlags } from './host-options.js';
import { printError } from './output.js';

/** The host specs the flags name (empty: the local engine). */
export function hostSpecsOf(flags: HostFlags): HostSpec[] {
  return resolveHostSpecs(flags);
}

/**
 * The hosts of --hosts/--host, checked and started (a line per host on stderr: admitted, or why not and the
 * fix); undefined without either flag. Throws when no host can be admitted.
 */
export async function openHostPool(specs: readonly HostSpec[], options: { platform?: string } = {}): Promise<HostPool | undefined> {
  if (specs.length === 0) return undefined;
  // The SSH stack (ssh2 among it) loads only when there are hosts to reach.
  const { createSshSandboxHost } = await import('../runtime/ssh/ssh-sandbox-host.js');
  const pool = new HostPool(specs.map((spec) => createSshSandboxHost(spec, options.platform !== undefined ? { platform: options.platform } : {})));
  try {
    const results = await pool.admit({ architecture: engineArchitecture(), localEngineId: await localEngineId() });
    for (const result of results) {
      if (result.admitted) printError(`host ${result.host}: admitted (${summarize(result.checks)})`);
      else {
        const failed = result.checks.find((check) => !check.ok);
        printError(`host ${result.host}: NOT admitted: ${result.error ?? 'check failed'}${failed?.fix ? `\n  fix: ${failed.fix}` : ''}`);
      }
    }
    requireAdmitted(results);
  } catch (error) {
    await pool.close();
    throw error;
  }
  return pool;
}

function summarize(checks: readonly HostCheck[]): string {
  return checks.filter((check) => check.name === 'engine' || check.name === 'disk').map((check) => check.detail).join('; ');
}
