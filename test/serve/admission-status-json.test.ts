// /v1/status `admission`: the engine-driven gate's state in the API's snake_case, null without a scheduler.
import { describe, expect, it } from 'vitest';
import { EngineAdmission } from '../../src/rollout/admission/engine-admission.js';
import { EngineSessionAdmission, FixedAdmission } from '../../src/rollout/admission/session-admission.js';
import { admissionStatusJson } from '../../src/serve/admission-status-json.js';

describe('admissionStatusJson', () => {
  it('engine mode: target, its source, the gate, the typical context, scale, duty cycle, the last reading, footprints', async () => {
    const admission = new EngineSessionAdmission(new EngineAdmission({ contextWindow: 20_000 }), () => 6);
    const { release } = await admission.acquire();
    admission.observe({ running: 1, waiting: 0, kvUsage: 0.93, kvCapacityTokens: 200_000, preemptions: 2, maxNumSeqs: null, paused: false }, 0);
    const json = admissionStatusJson({ ...admission.state(), footprints: { pi: { peakMemoryBytes: 300e6, meanCpuCores: 0.2, samples: 3 } } });
    expect(json).toEqual({
      mode: 'engine',
      active: 1,
      waiting: 0,
      limit: 6,
      host_cap: 6,
      engine: {
        target: 9,
        target_source: 'kv-cache',
        hold: 'kv-high',
        typical_context_tokens: 20_000,
        ended_sessions: 0,
        prior_sessions: 0,
        scale: 1,
        duty_cycle: 1,
        readings: 1,
        closings: 1,
        last_reading: { running: 1, waiting: 0, kv_usage: 0.93, kv_capacity_tokens: 200_000, preemptions: 2, paused: false },
      },
      footprints: { pi: { peak_memory_bytes: 300e6, mean_cpu_cores: 0.2, sessions: 3 } },
    });
    release();
  });

  it('fixed mode has no engine block; no scheduler, no admission', () => {
    expect(admissionStatusJson({ ...new FixedAdmission(4).state(), footprints: {} })).toEqual({ mode: 'fixed', active: 0, waiting: 0, limit: 4, host_cap: null, engine: null, footprints: {} });
    expect(admissionStatusJson(null)).toBeNull();
  });
});
