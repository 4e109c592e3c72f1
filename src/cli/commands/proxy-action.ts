// What `polar proxy` does (loaded only when it runs; flags are in proxy.ts).
import { resolveDbPath } from '../../config/paths.js';
import { DEFAULT_ROLLOUT_SAMPLING, describeSamplingPolicy, resolveSamplingPolicy } from '../../config/sampling-policy.js';
import { createGateway } from '../../gateway/create-gateway.js';
import { preflightReplicas } from '../../upstream/preflight/preflight-replicas.js';
import { UsageError } from '../../errors.js';
import { resolveUpstreamSpecs } from '../upstream-specs.js';
import type { UpstreamProfile } from '../../upstream/preflight/upstream-profile.js';
import { openStore } from '../../store/open-store.js';
import { createStoreRecorder } from '../../store/create-store-recorder.js';
import { printLine } from '../output.js';
import { startRolloutUpstreams } from '../../rollout/start-rollout-upstream.js';
import { waitForShutdown } from '../wait-for-shutdown.js';
import { createLoggingRecorder } from '../logging-recorder.js';
import { samplingFlagsOf } from '../sampling-options.js';
import type { ProxyOptions } from './proxy.js';
import { resolveToolFormat } from '../resolve-tool-format.js';
import { ENGINE_LABELS, parseEngineFlag } from '../../upstream/engines/engine-name.js';
import { detectEngine } from '../../upstream/engines/detect-engine.js';

export async function proxyAction(options: ProxyOptions): Promise<void> {
  // The proxy captures training data like a rollout does, so it enforces the same on-policy defaults.
  const sampling = resolveSamplingPolicy(samplingFlagsOf(options), DEFAULT_ROLLOUT_SAMPLING);
  const dbPath = resolveDbPath(options.db);
  const specs = resolveUpstreamSpecs(options.upstream, options.upstreamsFile);
  if (specs.length === 0) throw new UsageError('polar proxy needs --upstream (or --upstreams-file)', 'e.g. --upstream http://127.0.0.1:8000/v1, or --upstream sim:echo');
  const toolFormat = resolveToolFormat(options.toolFormat, specs[0]);
  const engine = parseEngineFlag(options.engine);
  const upstream = await startRolloutUpstreams(specs, []);
  let profile: UpstreamProfile | undefined;
  try {
    if (options.preflight) {
      [profile] = await preflightReplicas(upstream.urls, {
        model: options.model,
        ...(engine !== undefined ? { engine } : {}),
        tokenIn: options.tokenIn === true,
        sampling,
        allowLogprobMismatch: options.allowLogprobMismatch,
        eosTokenIds: options.eosTokenIds,
        nonStreamingUpstream: options.nonStreamingUpstream,
      });
    }
  } catch (error) {
    await upstream.close();
    throw error;
  }
  // Without a preflight the family is the flag's, else asked of the first replica.
  const gatewayEngine = profile?.engine ?? engine ?? (await detectEngine(upstream.urls[0] as string)).engine;
  const store = openStore(dbPath);
  const recorder = createStoreRecorder(store, { simulated: upstream.simulated });
  const gateway = createGateway({
    upstreamUrls: upstream.urls,
    replicaHealth: { intervalMs: options.healthInterval * 1000 },
    recorder: options.quiet ? recorder : createLoggingRecorder(recorder, printLine),
    upstreamModel: options.model,
    engine: gatewayEngine,
    maxTokensCap: options.maxTokensCap,
    upstreamTimeoutMs: options.upstreamTimeout * 1000,
    maxBodyBytes: options.maxBodyBytes,
    headersTimeoutMs: options.headerTimeout * 1000,
    bodyIdleTimeoutMs: options.bodyTimeout * 1000,
    maxConcurrentPerSession: options.maxSessionCalls,
    recordUpstreamResponse: options.recordUpstreamResponse,
    tokenIn: options.tokenIn === true,
    ...(toolFormat !== undefined ? { toolFormat } : {}),
    tokenInHistory: (id) => store.calls.listBySession(id),
    sampling,
    profile,
    nonStreamingUpstream: options.nonStreamingUpstream,
  });
  try {
    const url = await gateway.listen(options.port, options.host);
    if (options.socket) await gateway.listenOnSocket(options.socket);
    printLine(`polar gateway listening on ${url}${options.socket ? ` and ${options.socket}` : ''}`);
    for (const url of upstream.urls) printLine(`upstream: ${url}${upstream.simulated ? ' (built-in simulator)' : ''}`);
    if (profile) {
      printLine(`model: ${profile.model}${profile.maxModelLen ? ` (max_model_len ${profile.maxModelLen})` : ''}${profile.engineVersion ? `, ${ENGINE_LABELS[profile.engine]} ${profile.engineVersion}` : ''}`);
      printLine(`logprobs: ${profile.logprobMode}${profile.logprobsMatchSampling ? '' : ' (NOT the sampling distribution\'s; --allow-logprob-mismatch)'}; eos ids ${profile.eosTokenIds.join(',')}`);
    }
    printLine(`sampling: ${describeSamplingPolicy(sampling)}`);
    printLine(`database: ${dbPath}`);
    printLine('create a session key with: polar sessions new' + (options.db ? ` --db ${options.db}` : ''));
    await waitForShutdown();
  } finally {
    await gateway.close();
    await upstream.close();
    store.close();
  }
}
