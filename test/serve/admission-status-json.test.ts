// /v1/status `admission`: the engine-driven gate's state in the API's snake_case, null without a scheduler.
import { describe, expect, it } from 'vitest';
import { EngineAdmission } from '../../src/rollout/admission/engine-admission.js';
import type { EngineLoad } from '../../src/rollout/admission/engine-load.js';
import { SessionContexts } from '../../src/rollout/admission/session-contexts.js';
import { EngineSessionAdmission, FixedAdmission } from '../../src/rollout/admission/session-admission.js';
import { admissionStatusJson } from '../../src/serve/admission-status-json.js';

describe('admissionStatusJson', () => {
  it('engine mode: target, its source, the gate, the typical context, scale, duty cycle, the last reading, footprints', async () => {
    const admission = new EngineSessionAdmission(new EngineAdmission({ contextWindow: 40_000 }), () => 6);
    const { release } = await admission.acquire();
    admission.observe({ running: 1, waiting: 0, kvUsage: 0.93, kvCapacityTokens: 200_000, preemptions: 2, maxNumSeqs: null, paused: false }, 0);
    const json = admissionStatusJson({ ...admission.state(), footprints: { pi: { peakMemoryBytes: 300e6, meanCpuCores: 0.2, samples: 3 } } });
    const controller = {
      target: 9,
      target_source: 'kv-cache',
      hold: 'kv-high',
      held_context_tokens: 20_000,
      typical_context_tokens: 40_000,
      ended_sessions: 0,
      prior_sessions: 0,
      guard: 'held',
      scale: 1,
      duty_cycle: 1,
      preemption_cost: null,
      readings: 1,
      closings: 1,
      last_reading: { running: 1, waiting: 0, kv_usage: 0.93, kv_capacity_tokens: 200_000, preemptions: 2, paused: false },
    };
    expect(json).toEqual({
      mode: 'engine',
      active: 1,
      waiting: 0,
      limit: 6,
      host_cap: 6,
      engine: controller,
      replicas: [{ replica: 'engine', active: 1, ...controller }],
      footprints: { pi: { peak_memory_bytes: 300e6, mean_cpu_cores: 0.2, sessions: 3 } },
    });
    release();
  });

  it('several replicas: the fleet (targets summed, the gate open while one replica\'s is) and each replica with its own places, reading and gate', async () => {
    const contexts = new SessionContexts({ contextWindow: 20_000 });
    const replicas = ['http://gpu-0:8000/v1', 'http://gpu-1:8000/v1'].map((replica) => ({ replica, controller: new EngineAdmission({ contexts }) }));
    const admission = new EngineSessionAdmission(replicas, () => 64, contexts);
    const reading = (over: Partial<EngineLoad>): EngineLoad => ({ running: 0, waiting: 0, kvUsage: 0.2, kvCapacityTokens: 100_000, preemptions: 0, maxNumSeqs: null, paused: false, ...over });
    admission.observe(new Map([['http://gpu-0:8000/v1', reading({ kvUsage: 0.95, running: 3 })], ['http://gpu-1:8000/v1', reading({ running: 1 })]]), 0);
    const place = await admission.acquire();
    expect(place.replica).toBe('http://gpu-1:8000/v1');
    const json = admissionStatusJson({ ...admission.state(), footprints: {} }) as { engine: Record<string, unknown>; replicas: Record<string, unknown>[] };
    expect(json.engine).toMatchObject({ target: 18, hold: null, last_reading: { running: 4, kv_usage: (0.95 + 0.2) / 2, kv_capacity_tokens: 200_000 } });
    expect(json.replicas).toMatchObject([
      { replica: 'http://gpu-0:8000/v1', active: 0, target: 9, hold: 'kv-high', last_reading: { kv_usage: 0.95, running: 3 } },
      { replica: 'http://gpu-1:8000/v1', active: 1, target: 9, hold: null, last_reading: { kv_usage: 0.2, running: 1 } },
    ]);
    place.release();
  });

  it('fixed mode has no engine block; no scheduler, no admission', () => {
    expect(admissionStatusJson({ ...new FixedAdmission(4).state(), footprints: {} })).toEqual({ mode: 'fixed', active: 0, waiting: 0, limit: 4, host_cap: null, engine: null, replicas: null, footprints: {} });
    expect(admissionStatusJson(null)).toBeNull();
  });
});
