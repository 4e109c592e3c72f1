// Host admission: measured harness footprints (cgroup peak memory, mean CPU) become a number of session slots
// the host holds, bound by memory or CPU, and the engine mode's slots never exceed it.
import { describe, expect, it } from 'vitest';
import { agentSlotsFor, createSessionAdmission } from '../../../src/rollout/admission/create-session-admission.js';
import { DEFAULT_FOOTPRINT, footprintOfUsage, HarnessFootprints, hostSessionCap } from '../../../src/rollout/admission/host-capacity.js';

const GIB = 2 ** 30;

describe('hostSessionCap', () => {
  it('memory binds: (free - reserve) / peak per session, plus the sessions already running', () => {
    const cap = hostSessionCap({ freeMemoryBytes: 20 * GIB, cores: 64 }, { peakMemoryBytes: 3 * GIB, meanCpuCores: 0.2, samples: 4 }, 0);
    expect(cap).toEqual({ sessions: 6, boundBy: 'memory', byMemory: 6, byCpu: 256 });
    // Three running: their memory is no longer free, they still count.
    expect(hostSessionCap({ freeMemoryBytes: 11 * GIB, cores: 64 }, { peakMemoryBytes: 3 * GIB, meanCpuCores: 0.2, samples: 4 }, 3).sessions).toBe(6);
  });

  it('CPU binds: cores x share / mean CPU per session', () => {
    const cap = hostSessionCap({ freeMemoryBytes: 100 * GIB, cores: 2 }, { peakMemoryBytes: 512 * 2 ** 20, meanCpuCores: 0.4, samples: 1 }, 0);
    expect(cap).toMatchObject({ sessions: 4, boundBy: 'cpu', byCpu: 4 });
    expect(hostSessionCap({ freeMemoryBytes: 100 * GIB, cores: 2 }, { peakMemoryBytes: GIB, meanCpuCores: 0.4, samples: 1 }, 0, { cpuShare: 0.4 }).sessions).toBe(2);
  });

  it('is at least one session even on a host with nothing free', () => {
    expect(hostSessionCap({ freeMemoryBytes: GIB, cores: 1 }, DEFAULT_FOOTPRINT, 0)).toMatchObject({ sessions: 1, byMemory: 0 });
  });
});

describe('HarnessFootprints', () => {
  it('keeps the largest peak and the running mean CPU per harness; the default until measured', () => {
    const footprints = new HarnessFootprints();
    expect(footprints.of('pi')).toBe(DEFAULT_FOOTPRINT);
    expect(footprints.largest()).toBe(DEFAULT_FOOTPRINT);
    footprints.record('pi', { peakMemoryBytes: 300e6, meanCpuCores: 0.1 });
    footprints.record('pi', { peakMemoryBytes: 200e6, meanCpuCores: 0.3 });
    footprints.record('codex', { peakMemoryBytes: 150e6, meanCpuCores: 0.5 });
    expect(footprints.of('pi')).toEqual({ peakMemoryBytes: 300e6, meanCpuCores: 0.2, samples: 2 });
    expect(footprints.largest()).toEqual({ peakMemoryBytes: 300e6, meanCpuCores: 0.5, samples: 3 });
  });
});

describe('footprintOfUsage', () => {
  it('is the peak memory and the CPU time over the time the container worked', () => {
    expect(footprintOfUsage({ oomKills: 0, peakMemoryBytes: 524288000, cpuSeconds: 30 }, 60_000)).toEqual({ peakMemoryBytes: 524288000, meanCpuCores: 0.5 });
  });

  it('is null when the cgroup said nothing usable or no time was measured', () => {
    expect(footprintOfUsage({ oomKills: 0, peakMemoryBytes: null, cpuSeconds: 5 }, 1_000)).toBeNull();
    expect(footprintOfUsage({ oomKills: 0, peakMemoryBytes: 10, cpuSeconds: null }, 1_000)).toBeNull();
    expect(footprintOfUsage({ oomKills: 0, peakMemoryBytes: 10, cpuSeconds: 5 }, 0)).toBeNull();
  });
});

describe('--admission engine slots', () => {
  const host = () => ({ freeMemoryBytes: 10 * GIB, cores: 16 });

  it('fixed: --concurrency agents (4 by default); engine: what the host holds unless --concurrency says', () => {
    expect(agentSlotsFor('fixed', undefined, host)).toBe(4);
    expect(agentSlotsFor('engine', undefined, host)).toBe(8);
    expect(agentSlotsFor('engine', 3, host)).toBe(3);
    // Without --admission: engine, the default.
    expect(agentSlotsFor(undefined, undefined, host)).toBe(8);
  });

  it('engine on SSH hosts: what the hosts hold together, not this machine (the agents run there); fixed and --concurrency as before', () => {
    const tiny = () => ({ freeMemoryBytes: 1 * GIB, cores: 1 });
    expect(agentSlotsFor('engine', undefined, tiny, () => 24)).toBe(24);
    expect(agentSlotsFor(undefined, undefined, tiny, () => 24)).toBe(24);
    expect(agentSlotsFor('engine', 3, tiny, () => 24)).toBe(3);
    expect(agentSlotsFor('fixed', undefined, tiny, () => 24)).toBe(4);
    expect(agentSlotsFor('engine', undefined, tiny, () => 0)).toBe(1);
  });

  it('engine mode: the limit is the lower of the controller\'s target and the host cap by the footprints measured', () => {
    const setup = createSessionAdmission({ mode: 'engine', contextWindow: 10_000, host });
    expect(setup.agentSlots).toBe(8);
    setup.admission.observe({ running: 0, waiting: 0, kvUsage: 0, kvCapacityTokens: 1_000_000, preemptions: 0, maxNumSeqs: null, paused: false }, 0);
    expect(setup.admission.state()).toMatchObject({ mode: 'engine', hostCap: 8, limit: 8 });
    setup.footprints.record('pi', { peakMemoryBytes: 2 * GIB, meanCpuCores: 0.1 });
    expect(setup.admission.state()).toMatchObject({ hostCap: 4, limit: 4 });
    expect(createSessionAdmission({ mode: 'fixed', contextWindow: null }).admission.state()).toMatchObject({ mode: 'fixed', limit: 4, engine: null });
  });
});
