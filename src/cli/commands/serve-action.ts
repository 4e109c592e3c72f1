// What `polar serve` does (loaded only when it runs; flags are in serve.ts).
import path from 'node:path';
import { resolveCacheDir, resolveDbPath } from '../../config/paths.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_SESSION_LIMITS, type RolloutOptions } from '../../rollout/run-rollout.js';
import { createDockerRuntime } from '../../runtime/docker-runtime.js';
import { startServe } from '../../serve/start-serve.js';
import { openStore } from '../../store/open-store.js';
import { hostsDefaultConcurrency } from '../admission-option.js';
import { containerLimitsFromFlags } from '../container-limit-options.js';
import { printError, printLine } from '../output.js';
import { printServeEvent } from '../print-serve-event.js';
import { resolveUpstreamSpecs } from '../upstream-specs.js';
import { parseEngineFlag } from '../../upstream/engines/engine-name.js';
import { waitForShutdown } from '../wait-for-shutdown.js';
import { hostSpecsOf, openHostPool } from '../open-host-pool.js';
import type { ServeFlags } from './serve.js';
import { DEFAULT_ROLLOUT_SAMPLING, resolveSamplingPolicy } from '../../config/sampling-policy.js';
import { samplingFlagsOf } from '../sampling-options.js';
import { resolveToolFormat } from '../resolve-tool-format.js';

export async function serveAction(flags: ServeFlags): Promise<void> {
  const upstreams = resolveUpstreamSpecs(flags.upstream, flags.upstreamsFile);
  if (upstreams.length === 0) {
    throw new UsageError('polar serve needs --upstream: the model server to sample from', 'e.g. --upstream http://127.0.0.1:8000/v1 (vLLM), or --upstream sim:oracle');
  }
  const engine = parseEngineFlag(flags.engine);
  // As `polar rollout` resolves them: the sampling over the on-policy defaults, the token-in tool format (the
  // flag, else the simulator's; else the server's parser). The format applies to every token_in batch.
  const sampling = resolveSamplingPolicy(samplingFlagsOf(flags), DEFAULT_ROLLOUT_SAMPLING);
  const toolFormat = resolveToolFormat(flags.toolFormat, upstreams[0]);
  // --host is the listen address, or (ssh://…) a Docker host: both may be given.
  const listen = (flags.host ?? []).filter((value) => !value.startsWith('ssh://'));
  if (listen.length > 1) throw new UsageError(`--host names ${listen.length} listen addresses (${listen.join(', ')})`, 'Give one address to listen on; Docker hosts are written ssh://user@host[:port].');
  const hosts = await openHostPool(hostSpecsOf({ ...(flags.hosts !== undefined ? { hosts: flags.hosts } : {}), host: (flags.host ?? []).filter((value) => value.startsWith('ssh://')) }));
  const concurrency = hostsDefaultConcurrency(flags.admission, flags.concurrency, hosts === undefined ? undefined : () => hosts.capacity());
  const dbPath = resolveDbPath(flags.db);
  const store = openStore(dbPath);
  const limits = containerLimitsFromFlags(flags);
  const defaults: Partial<RolloutOptions> = {
    timeoutSeconds: flags.timeout,
    evaluate: flags.eval,
    sampling,
    ...(flags.tokenIn === true ? { tokenIn: true } : {}),
    ...(toolFormat !== undefined ? { toolFormat } : {}),
    ...(flags.allowLogprobMismatch === true ? { allowLogprobMismatch: true } : {}),
    ...(flags.eosTokenIds !== undefined ? { eosTokenIds: flags.eosTokenIds } : {}),
    ...(flags.preflightTimeout !== undefined ? { preflightTimeoutSeconds: flags.preflightTimeout } : {}),
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    ...(engine !== undefined ? { engine } : {}),
    ...(flags.maxTokensCap !== undefined ? { maxTokensCap: flags.maxTokensCap } : {}),
    ...(flags.upstreamTimeout !== undefined ? { upstreamTimeoutSeconds: flags.upstreamTimeout } : {}),
    ...(flags.gpuPeakTokensPerSecond !== undefined ? { gpuPeakTokensPerSecond: flags.gpuPeakTokensPerSecond } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(flags.admission !== undefined ? { admission: flags.admission } : {}),
    ...(flags.maxAttempts !== undefined ? { maxAttempts: flags.maxAttempts } : {}),
    ...(limits !== undefined ? { limits: { ...DEFAULT_SESSION_LIMITS, ...limits } } : {}),
  };
  try {
    const running = await startServe({
      store,
      runtime: createDockerRuntime(),
      cacheDir: resolveCacheDir(),
      upstreams,
      workDir: path.join(path.dirname(path.resolve(dbPath)), '.polar-serve'),
      defaults,
      maxBatches: flags.maxBatches,
      ...(flags.maxStaleness !== undefined ? { maxStaleness: flags.maxStaleness } : {}),
      ...(flags.policyVersion !== undefined ? { policyVersion: flags.policyVersion } : {}),
      host: listen[0] ?? '127.0.0.1',
      port: flags.port,
      ...(hosts !== undefined ? { hosts } : {}),
      maxBodyBytes: flags.maxBodyBytes,
      ...((flags.token ?? process.env.POLAR_SERVE_TOKEN) ? { token: flags.token ?? process.env.POLAR_SERVE_TOKEN } : {}),
    });
    if (running.generatedToken) printError(`polar serve token (send as Authorization: Bearer <token>): ${running.token}`);
    if (flags.json) running.engine.on((event) => printLine(JSON.stringify(event)));
    else if (flags.verbose) running.engine.on(printServeEvent);
    hosts?.on((event) => {
      if (event.type === 'host') printError(`host ${event.host}: ${event.state}${event.state !== 'up' && event.lastError !== null ? ` (${event.lastError})` : ''}`);
    });
    printLine(`polar serve listening at ${running.url} (upstream ${upstreams.join(', ')}; capture ${running.engine.defaultCapture} unless a batch asks; db ${dbPath}; API at ${running.url}/openapi.json)`);
    try {
      await waitForShutdown();
    } finally {
      await running.close();
    }
  } finally {
    await hosts?.close();
    store.close();
  }
}

