// /v1/status `admission`: the gate in front of the agent stage (`--admission fixed|engine`), in the API's snake_case.
import type { SchedulerAdmissionState } from '../rollout/session-scheduler.js';

export function admissionStatusJson(state: SchedulerAdmissionState | null): Record<string, unknown> | null {
  if (state === null) return null;
  const engine = state.engine;
  return {
    mode: state.mode,
    active: state.active,
    waiting: state.waiting,
    limit: state.limit,
    host_cap: state.hostCap,
    engine:
      engine === null
        ? null
        : {
            target: engine.target,
            target_source: engine.targetSource,
            hold: engine.hold,
            typical_context_tokens: engine.typicalContext === null ? null : Math.round(engine.typicalContext),
            ended_sessions: engine.endedSessions,
            prior_sessions: engine.priorSessions,
            scale: engine.scale,
            duty_cycle: engine.duty,
            readings: engine.readings,
            closings: engine.closings,
            last_reading:
              engine.load === null
                ? null
                : { running: engine.load.running, waiting: engine.load.waiting, kv_usage: engine.load.kvUsage, kv_capacity_tokens: engine.load.kvCapacityTokens, preemptions: engine.load.preemptions, paused: engine.load.paused },
          },
    footprints: Object.fromEntries(
      Object.entries(state.footprints).map(([harness, footprint]) => [harness, { peak_memory_bytes: footprint.peakMemoryBytes, mean_cpu_cores: footprint.meanCpuCores, sessions: footprint.samples }]),
    ),
  };
}
