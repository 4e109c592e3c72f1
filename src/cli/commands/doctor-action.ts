// What `polar doctor` does (loaded only when it runs; flags are in doctor.ts).
import { DEFAULT_ROLLOUT_SAMPLING, describeSamplingPolicy, resolveSamplingPolicy } from '../../config/sampling-policy.js';
import { firstFatalCheck, inspectUpstream, preflightError } from '../../upstream/preflight/run-preflight.js';
import { printJson, printLine, printTable } from '../output.js';
import { startRolloutUpstream } from '../../rollout/start-rollout-upstream.js';
import { samplingFlagsOf } from '../sampling-options.js';
import type { DoctorOptions } from './doctor.js';
import { parseEngineFlag } from '../../upstream/engines/engine-name.js';
import { parseControlFeatures } from '../parse-control-features.js';
import { UsageError } from '../../errors.js';
import { hasHostFlags } from '../host-options.js';

export async function doctorAction(options: DoctorOptions): Promise<void> {
  const withHosts = hasHostFlags(options);
  if (options.upstream === undefined && !withHosts) {
    throw new UsageError('polar doctor needs --upstream (a model server) or --hosts/--host (Docker hosts)', 'e.g. polar doctor --upstream http://127.0.0.1:8000/v1, or polar doctor --hosts hosts.yaml');
  }
  if (withHosts) await (await import('./doctor-hosts-action.js')).doctorHostsAction(options);
  if (options.upstream !== undefined) await doctorUpstream(options, options.upstream);
}

async function doctorUpstream(options: DoctorOptions, upstreamSpec: string): Promise<void> {
  const sampling = resolveSamplingPolicy(samplingFlagsOf(options), DEFAULT_ROLLOUT_SAMPLING);
  const engine = parseEngineFlag(options.engine);
  const upstream = await startRolloutUpstream(upstreamSpec, []);
  try {
    const profile = await inspectUpstream({
      upstreamUrl: upstream.url,
      model: options.model,
      ...(engine !== undefined ? { engine } : {}),
      ...(options.tokenIn === true ? { tokenIn: true } : {}),
      ...(options.control !== undefined ? { control: parseControlFeatures(options.control) } : {}),
      sampling,
      allowLogprobMismatch: options.allowLogprobMismatch,
      eosTokenIds: options.eosTokenIds,
      nonStreamingUpstream: options.nonStreamingUpstream,
      timeoutMs: options.timeout * 1000,
    });
    if (options.json) {
      printJson({ sampling, ...profile });
    } else {
      printLine(`upstream ${profile.url}  sampling: ${describeSamplingPolicy(sampling)}`);
      printTable(
        ['check', 'result', 'detail'],
        profile.checks.map((check) => [check.name, check.ok ? 'ok' : check.warning ? 'warn' : 'FAIL', check.detail]),
      );
      // Every hint: a failure's fix, and what a passing check advises (a missing ceiling, engine controls to enable).
      for (const check of profile.checks) if (check.hint) printLine(`  ${check.name}: ${check.hint}`);
    }
    const fatal = firstFatalCheck(profile.checks);
    if (fatal) throw preflightError(fatal);
  } finally {
    await upstream.close();
  }
}
