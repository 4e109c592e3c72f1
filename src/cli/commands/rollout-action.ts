// What `polar rollout` does (loaded only when it runs; flags are in rollout.ts).
import path from 'node:path';
import { resolveCacheDir, resolveDbPath } from '../../config/paths.js';
import { DEFAULT_ROLLOUT_SAMPLING, resolveSamplingPolicy } from '../../config/sampling-policy.js';
import { CancelledError, UsageError } from '../../errors.js';
import type { RolloutEvent } from '../../rollout/rollout-events.js';
import type { PipelineSizes } from '../../rollout/run-pipeline.js';
import { resumeRollout, runRollout, type RolloutResult } from '../../rollout/run-rollout.js';
import { mountDashboard } from '../../ui/mount-dashboard.js';
import { createDockerRuntime } from '../../runtime/docker-runtime.js';
import { openStore, type Store } from '../../store/open-store.js';
import { printError, printLine } from '../output.js';
import { nextCommandLines, wrapText } from '../wrap-text.js';
import { printRolloutEvent } from '../print-rollout-event.js';
import { type ContainerLimitFlags, containerLimitsFromFlags } from '../container-limit-options.js';
import type { ContainerLimits } from '../../runtime/container-runtime.js';
import { DEFAULT_SESSION_LIMITS } from '../../rollout/run-rollout.js';
import { samplingFlagsOf } from '../sampling-options.js';
import { withSignalCleanup } from '../with-signal-cleanup.js';
import { warnAboutEmulation } from '../task-set-load-options.js';
import { parseTaskSetName } from '../../eval/swebench/families/task-set.js';
import type { RolloutFlags } from './rollout.js';
import { resolveToolFormat } from '../resolve-tool-format.js';
import type { ToolFormat } from '../../model-format/format-types.js';
import { parseEngineFlag } from '../../upstream/engines/engine-name.js';
import { resolveUpstreamSpecs } from '../upstream-specs.js';
import { storedEngineUsage } from '../stored-engine-usage.js';
import { briefEngineUsage, formatEngineUsage } from '../../ui/format-engine.js';
import { formatCount, formatDuration } from '../../ui/format-number.js';
import { hostsDefaultConcurrency } from '../admission-option.js';
import { hostSpecsOf, openHostPool } from '../open-host-pool.js';
import { hasHostFlags, type HostFlags } from '../host-options.js';

export async function rolloutAction(flags: RolloutFlags): Promise<void> {
  if (flags.resume === undefined && (flags.harness === undefined || flags.dataset === undefined)) {
    throw new UsageError('polar rollout needs --harness and --dataset (or --resume <run>)', 'e.g. polar rollout --harness pi --dataset tasks.jsonl --upstream http://127.0.0.1:8000/v1');
  }
  const [upstream, ...replicas] = resolveUpstreamSpecs(flags.upstream, flags.upstreamsFile);
  if (flags.resume === undefined && upstream === undefined) {
    throw new UsageError(
      'polar rollout needs --upstream: the model server to sample from',
      'e.g. --upstream http://127.0.0.1:8000/v1 (vLLM), or --upstream sim:oracle to validate the setup with the built-in oracle model.',
    );
  }
  if (flags.resume === undefined) warnAboutEmulation(flags);
  const engine = parseEngineFlag(flags.engine);
  const sampling = resolveSamplingPolicy(samplingFlagsOf(flags), DEFAULT_ROLLOUT_SAMPLING);
  const store = openStore(resolveDbPath(flags.db));
  let hosts;
  let hostFlags: HostFlags | undefined;
  try {
    hostFlags = rolloutHostFlags(flags, store);
    hosts = await openHostPool(hostFlags === undefined ? [] : hostSpecsOf(hostFlags), flags.platform !== undefined ? { platform: flags.platform } : {});
  } catch (error) {
    store.close();
    throw error;
  }
  const dashboard = !flags.json && process.stdout.isTTY ? mountDashboard() : undefined;
  const verbose = flags.verbose === true;
  const print = flags.json ? (event: RolloutEvent) => printLine(JSON.stringify(event)) : (dashboard?.push ?? ((event: RolloutEvent) => printRolloutEvent(event, { verbose })));
  const pipeline: Partial<PipelineSizes> = {};
  if (flags.initWorkers !== undefined) pipeline.initWorkers = flags.initWorkers;
  if (flags.postWorkers !== undefined) pipeline.postWorkers = flags.postWorkers;
  if (flags.readyBuffer !== undefined) pipeline.readyBuffer = flags.readyBuffer;
  try {
    const result = await withSignalCleanup((signal) => {
      const context = { runtime: createDockerRuntime(flags.platform === undefined ? {} : { platform: flags.platform }), store, cacheDir: resolveCacheDir(), signal, emit: print, ...(hosts !== undefined ? { hosts } : {}) };
      // Many hosts and no --concurrency: as many agents as the hosts hold together.
      const concurrency = hostsDefaultConcurrency(flags.admission, flags.concurrency, hosts === undefined ? undefined : () => hosts.capacity());
      if (flags.resume !== undefined) {
        const overrides = {
          ...(concurrency === undefined ? {} : { concurrency }),
          ...(flags.admission === undefined ? {} : { admission: flags.admission }),
          ...(hostFlags !== undefined ? { hostFlags } : {}),
          ...(flags.gpuPeakTokensPerSecond === undefined ? {} : { gpuPeakTokensPerSecond: flags.gpuPeakTokensPerSecond }),
        };
        return resumeRollout(flags.resume, context, { ...overrides, pipeline, ...(flags.eval ? {} : { evaluate: false }), ...withLimits(flags) });
      }
      return runRollout(
        {
          harness: flags.harness as string,
          datasetPath: flags.dataset as string,
          instanceIds: flags.instance,
          upstream: upstream as string,
          ...(replicas.length > 0 ? { replicas } : {}),
          ...(hostFlags !== undefined ? { hostFlags } : {}),
          sampling,
          ...(flags.model !== undefined ? { model: flags.model } : {}),
          ...(engine !== undefined ? { engine } : {}),
          ...(flags.maxTokensCap !== undefined ? { maxTokensCap: flags.maxTokensCap } : {}),
          ...(flags.upstreamTimeout !== undefined ? { upstreamTimeoutSeconds: flags.upstreamTimeout } : {}),
          ...(flags.gpuPeakTokensPerSecond !== undefined ? { gpuPeakTokensPerSecond: flags.gpuPeakTokensPerSecond } : {}),
          ...(flags.tokenIn === true ? { tokenIn: true, ...withToolFormat(resolveToolFormat(flags.toolFormat, upstream)) } : {}),
          ...(flags.allowLogprobMismatch ? { allowLogprobMismatch: true } : {}),
          ...(flags.eosTokenIds !== undefined ? { eosTokenIds: flags.eosTokenIds } : {}),
          ...(flags.maxAttempts !== undefined ? { maxAttempts: flags.maxAttempts } : {}),
          ...(flags.pullConcurrency !== undefined ? { pullConcurrency: flags.pullConcurrency } : {}),
      ...(flags.preflightTimeout !== undefined ? { preflightTimeoutSeconds: flags.preflightTimeout } : {}),
          runName: flags.runName,
          samples: flags.samples,
          timeoutSeconds: flags.timeout,
          limit: flags.limit,
          concurrency,
          ...(flags.admission !== undefined ? { admission: flags.admission } : {}),
          pipeline,
          evaluate: flags.eval,
      ...(flags.taskSet !== undefined ? { taskSet: parseTaskSetName(flags.taskSet) } : {}),
      ...(flags.imageTemplate !== undefined ? { imageTemplate: flags.imageTemplate } : {}),
      ...(flags.platform !== undefined ? { platform: flags.platform } : {}),
      ...withLimits(flags),
        },
        context,
      );
    });
    await dashboard?.close();
    // --verbose without the dashboard: the run-end event's lines (printRolloutEvent) already gave the engine totals.
    if (!flags.json) for (const line of ['', ...summaryLines(result, store.path, { verbose, engineShown: verbose && dashboard === undefined })]) printLine(line);
    if (result.run.status === 'interrupted') {
      throw new CancelledError(`run ${result.run.name} was interrupted`, `Continue it with: polar rollout --resume ${result.run.name}`);
    }
  } finally {
    await dashboard?.close();
    await hosts?.close();
    store.close();
  }
}

/** The token-in tool format, when the flag or the simulator spec names one (else the server's parser decides). */
function withToolFormat(format: ToolFormat | undefined): { toolFormat?: ToolFormat } {
  return format === undefined ? {} : { toolFormat: format };
}

/** Session container limits: the defaults, with what the flags set. */
function withLimits(flags: ContainerLimitFlags): { limits?: ContainerLimits } {
  const given = containerLimitsFromFlags(flags);
  return given === undefined ? {} : { limits: { ...DEFAULT_SESSION_LIMITS, ...given } };
}

/**
 * The closing lines: what the run did, where its data is, the engine totals when they say something (all of them,
 * with what could not be measured, under --verbose), and the commands to run next.
 */
function summaryLines(result: RolloutResult, dbPath: string, options: { verbose: boolean; engineShown: boolean }): string[] {
  const { run, counts } = result;
  const total = Object.values(counts).reduce((sum, n) => sum + (n ?? 0), 0);
  const parts = Object.entries(counts).map(([status, n]) => `${n} ${status}`).join(', ');
  const db = path.resolve(dbPath) === path.resolve(resolveDbPath(undefined)) ? '' : ` --db ${dbPath}`;
  const usage = options.engineShown ? undefined : storedEngineUsage(run.stats ?? {});
  const engine = usage === undefined ? undefined : options.verbose ? formatEngineUsage(usage) : briefEngineUsage(usage);
  const wallMs = typeof run.stats?.['wallMs'] === 'number' ? ` in ${formatDuration(run.stats['wallMs'])}` : '';
  return [
    ...wrapText(`Run ${run.name} ${run.status}${wallMs}${run.statusReason ? ` (${run.statusReason})` : ''}: ${formatCount(total, 'session')}, ${parts || 'none ended'}; every captured call is in ${dbPath}.`),
    ...(engine !== undefined ? [engine] : []),
    ...nextCommandLines([`polar runs show ${run.name}${db}`, `polar view${db}`, `polar export jsonl --run ${run.name}${db} -o rows.jsonl`]),
  ];
}

/**
 * The run's --hosts/--host, the file as an absolute path (stored with a new run); on --resume without them, the
 * ones the run was started with, said on stderr, so that its sessions go on where they ran and the killed
 * process's containers there are collected. Undefined: the local engine.
 */
function rolloutHostFlags(flags: RolloutFlags, store: Store): HostFlags | undefined {
  if (hasHostFlags(flags)) {
    return { ...(flags.hosts !== undefined ? { hosts: path.resolve(flags.hosts) } : {}), ...((flags.host ?? []).length > 0 ? { host: flags.host } : {}) };
  }
  if (flags.resume === undefined) return undefined;
  const stored = storedHostFlags(store.runs.get(flags.resume)?.config.hostFlags);
  if (stored !== undefined) printError(`resuming on the run's hosts: ${[stored.hosts, ...(stored.host ?? [])].filter((value) => value !== undefined).join(', ')} (--hosts or --host names others)`);
  return stored;
}

/** A run's stored host flags (see RolloutOptions.hostFlags); undefined when it ran on the local engine. */
function storedHostFlags(value: unknown): HostFlags | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { hosts, host } = value as { hosts?: unknown; host?: unknown };
  const urls = Array.isArray(host) ? host.filter((url): url is string => typeof url === 'string') : [];
  if (typeof hosts !== 'string' && urls.length === 0) return undefined;
  return { ...(typeof hosts === 'string' ? { hosts } : {}), ...(urls.length > 0 ? { host: urls } : {}) };
}
