// /v1/status `admission`: the gate in front of the agent stage (`--admission fixed|engine`), in the API's snake_case.
// Engine mode: `engine` is the fleet (targets summed over the replicas, the gate open while any replica's is) and
// `replicas` each replica's own controller (its KV capacity, queue, preemptions, target, gate and places).
import type { EngineAdmissionState } from '../rollout/admission/engine-admission.js';
import type { SchedulerAdmissionState } from '../rollout/session-scheduler.js';

function controllerJson(engine: EngineAdmissionState): Record<string, unknown> {
  return {
    target: engine.target,
    target_source: engine.targetSource,
    hold: engine.hold,
    held_context_tokens: engine.heldContext === null ? null : Math.round(engine.heldContext),
    typical_context_tokens: engine.typicalContext === null ? null : Math.round(engine.typicalContext),
    ended_sessions: engine.endedSessions,
    prior_sessions: engine.priorSessions,
    guard: engine.guard,
    scale: engine.scale,
    duty_cycle: engine.duty,
    preemption_cost: engine.preemptionCost,
    readings: engine.readings,
    closings: engine.closings,
    last_reading:
      engine.load === null
        ? null
        : { running: engine.load.running, waiting: engine.load.waiting, kv_usage: engine.load.kvUsage, kv_capacity_tokens: engine.load.kvCapacityTokens, preemptions: engine.load.preemptions, paused: engine.load.paused },
  };
}

export function admissionStatusJson(state: SchedulerAdmissionState | null): Record<string, unknown> | null {
  if (state === null) return null;
  return {
    mode: state.mode,
    active: state.active,
    waiting: state.waiting,
    limit: state.limit,
    host_cap: state.hostCap,
    engine: state.engine === null ? null : controllerJson(state.engine),
    replicas: state.replicas === null ? null : state.replicas.map((replica) => ({ replica: replica.replica, active: replica.active, ...controllerJson(replica) })),
    footprints: Object.fromEntries(
      Object.entries(state.footprints).map(([harness, footprint]) => [harness, { peak_memory_bytes: footprint.peakMemoryBytes, mean_cpu_cores: footprint.meanCpuCores, sessions: footprint.samples }]),
    ),
  };
}
