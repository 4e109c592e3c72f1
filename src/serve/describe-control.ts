// /v1/status's `control` block: the pause mode and sleep polar applied to the engines, what the last resume
// loaded, and per replica its control state and the control features it offers.
import type { EngineStatus } from '../rollout/rollout-engine.js';

export function describeControl(control: EngineStatus['control']): Record<string, unknown> {
  return {
    mode: control.mode,
    sleeping: control.sleeping,
    paused_at: control.pausedAt,
    weights_kind: control.weightsKind,
    upstream_model: control.upstreamModel,
    replicas:
      control.replicas?.map((replica) => ({
        url: replica.url,
        engine: replica.engine,
        paused: replica.paused,
        sleeping: replica.sleeping,
        weights_version: replica.weightsVersion,
        weights_kind: replica.weightsKind,
        last_error: replica.lastError,
        features: replica.capabilities === null ? null : Object.fromEntries(Object.entries(replica.capabilities.features).map(([name, support]) => [name, { available: support.available, detail: support.detail, ...(support.fix !== undefined ? { fix: support.fix } : {}) }])),
      })) ?? null,
  };
}
