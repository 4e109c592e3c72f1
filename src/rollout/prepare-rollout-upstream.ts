// The upstream of a rollout, checked before anything else happens: the simulator is started (or the
// URL parsed) and the preflight must pass (exit 5 unreachable / no token ids, exit 3 configuration)
// before a run row, an image pull or a container exists.
import type { SamplingPolicy } from '../config/sampling-policy.js';
import type { SwebenchRecord } from '../eval/swebench/swebench-record.js';
import type { EngineName } from '../upstream/engines/engine-name.js';
import { preflightReplicas } from '../upstream/preflight/preflight-replicas.js';
import type { UpstreamProfile } from '../upstream/preflight/upstream-profile.js';
import { startRolloutUpstreams, type StartedRolloutUpstream } from './start-rollout-upstream.js';

export interface RolloutUpstreamOptions {
  /** `http(s)://…/v1` or `sim:<policy>`. */
  upstream: string;
  /** Further replicas serving the same model (`upstream` is the first); each is preflighted. */
  replicas?: readonly string[];
  model?: string;
  /** `--engine`: the server family; detected from the server when absent. */
  engine?: EngineName;
  /** The run uses token-in (SGLang without chat ids is then usable through /generate). */
  tokenIn?: boolean;
  sampling: SamplingPolicy;
  allowLogprobMismatch?: boolean;
  eosTokenIds?: number[];
  /** Upper bound of the preflight in ms (default 20 000). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** `records` starts empty and grows as runs arrive (a long-lived scheduler's `sim:oracle`). */
  tasksArrive?: boolean;
}

export interface PreparedRolloutUpstream extends StartedRolloutUpstream {
  /** The first replica's profile (all replicas serve the same model and template). */
  profile: UpstreamProfile;
  /** Every replica's profile, in the order of `urls`. */
  profiles: UpstreamProfile[];
}

/** Starts the upstream and runs the preflight; on a failed preflight the simulator is stopped and the error rethrown. */
export async function prepareRolloutUpstream(options: RolloutUpstreamOptions, records: readonly SwebenchRecord[]): Promise<PreparedRolloutUpstream> {
  const upstream = await startRolloutUpstreams([options.upstream, ...(options.replicas ?? [])], records, { tasksArrive: options.tasksArrive === true });
  try {
    const profiles = await preflightReplicas(upstream.urls, {
      sampling: options.sampling,
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.engine !== undefined ? { engine: options.engine } : {}),
      ...(options.tokenIn !== undefined ? { tokenIn: options.tokenIn } : {}),
      ...(options.allowLogprobMismatch !== undefined ? { allowLogprobMismatch: options.allowLogprobMismatch } : {}),
      ...(options.eosTokenIds !== undefined ? { eosTokenIds: options.eosTokenIds } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    const profile = profiles[0] as UpstreamProfile;
    return { ...upstream, simulated: upstream.simulated || profiles.some((one) => one.simulated), profile, profiles };
  } catch (error) {
    await upstream.close();
    throw error;
  }
}
