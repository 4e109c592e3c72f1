// The GPU benchmark's table code: the ratios to the synchronous loop and the goals judged from the figures
// (on made-up figures), and the whole benchmark on a tiny configuration (2 groups x 2 samples, 3 steps, 2 host slots): every
// loop trains what it should, the synchronous loop is never stale, the tables carry every loop.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/sim/seeded-random.js';
import type { LoopFigures } from './gpu-loop-figures.js';
import { goalLines, loopTable, sensitivityTable } from './gpu-loop-tables.js';
import { runLoop } from './gpu-loops.js';
import { loopFigures } from './gpu-loop-figures.js';
import { defaultGpuBenchConfig, runGpuBench, varyWorkload, type GpuBenchConfig } from './gpu-scheduler.js';
import { TOPOLOGIES } from './gpu-topology.js';

function figures(over: Partial<LoopFigures>): LoopFigures {
  return {
    stepsMeasured: 3, hours: 2, trainShare: 0.1, busyRollout: 1, busyLoop: 1, effectiveRollout: 0.5, effectiveLoop: 0.55, ceilingUtil: 0.1,
    generatedPerSecond: 100, meanBatch: 8, sessionsPerHour: 20, sessionsTrained: 40, tailWaste: 0.1, idle: 0, preemptions: 100,
    staleness: { mean: 0, max: 0 }, cancelled: 0, cancelledShare: 0, ...over,
  };
}

const made = [
  { kind: 'sync' as const, figures: figures({}) },
  { kind: 'async' as const, figures: figures({ sessionsPerHour: 30, effectiveRollout: 0.6, staleness: { mean: 0.5, max: 1 } }) },
  { kind: 'carry' as const, figures: figures({ sessionsPerHour: 41, effectiveRollout: 0.95, tailWaste: 0.02, preemptions: 4, staleness: { mean: 0.25, max: 1 } }) },
  { kind: 'cancel' as const, figures: figures({ sessionsPerHour: 35, effectiveRollout: 0.8, preemptions: 40, cancelled: 6, cancelledShare: 0.04 }) },
];

describe('tables', () => {
  it('gives each loop its ratios to the synchronous loop', () => {
    const rows = loopTable(made).split('\n').slice(2);
    expect(rows).toHaveLength(4);
    expect(rows[0]).toMatch(/synchronous.*\| +1\.00x \| +1\.00x \|/);
    expect(rows[2]).toMatch(/tail carry +\| +95\.0% \|.*\| +41\.0 \| +2\.05x \| +1\.90x \| +2\.0% \| +4 \| 0\.25 \/ 1 /);
    expect(rows[3]).toContain('6 (4.0% GPU)');
    expect(() => loopTable(made.slice(1))).toThrow(/synchronous/);
  });

  it('judges each goal by its figure, met or missed', () => {
    expect(goalLines(made, 'carry')).toEqual([
      '- met: rollout-phase effective GPU utilisation >= 90%: 95.0%',
      '- met: sessions/h >= 2x synchronous: 2.05x',
      '- met: sessions/h above polar serve today: 41.0 vs 30.0',
      '- met: tail waste <= 5% of a step: 2.0%',
      '- met: preemptions near zero (<= 5 per hour): 4 in 2.00 h',
    ]);
    expect(goalLines(made, 'cancel').filter((line) => line.startsWith('- MISSED'))).toHaveLength(4);
  });

  it('sensitivity: one row per assumption with the scheduler\'s ratio to sync', () => {
    const table = sensitivityTable([{ label: 'tool time x2', sync: made[0]!.figures, scheduler: made[2]!.figures }], 'carry');
    expect(table.split('\n')[2]).toMatch(/tool time x2 \| +20\.0 \| +41\.0 \| 2\.05x \|/);
  });
});

function tinyConfig(): GpuBenchConfig {
  const config = defaultGpuBenchConfig();
  return {
    ...config,
    params: { ...config.params, groups: 2, samples: 2, steps: 3, extraGroups: 1, hostSlots: 2, random: () => seededRandom(3) },
    topologies: [
      { topology: TOPOLOGIES.shared, groups: 2, hostSlots: 2, variations: [{ label: 'tool time x2', toolScale: 2 }] },
      { topology: { ...TOPOLOGIES.fleet, engines: 2, trainerGpus: 2 }, groups: 2, hostSlots: 4, variations: [] },
    ],
  };
}

describe('on a tiny configuration', () => {
  it('each loop trains groups x samples sessions per measured step; sync is never stale, carry within --max-staleness', async () => {
    const { params } = tinyConfig();
    for (const kind of ['sync', 'carry', 'cancel'] as const) {
      const world = await runLoop(kind, params);
      expect(world.steps).toHaveLength(3);
      for (const step of world.steps) {
        expect(step.sessions).toHaveLength(4);
        expect(new Set(step.sessions.map((session) => session.group)).size).toBe(2);
        expect(step.sessions.every((session) => session.ended && !session.cancelled && session.versions.length > 0)).toBe(true);
      }
      const f = loopFigures(world, params.topology);
      expect(f.sessionsTrained).toBe(8);
      expect(f.effectiveRollout).toBeGreaterThan(0);
      expect(f.effectiveRollout).toBeLessThanOrEqual(f.busyRollout + 1e-9);
      if (kind === 'sync') expect(f.staleness).toEqual({ mean: 0, max: 0 });
      else expect(f.staleness.max).toBeLessThanOrEqual(params.maxStaleness);
    }
  });

  it('with trainer GPUs of its own, the engines generate while the new scheduler trains; the synchronous loop\'s wait; on a shared GPU none do', async () => {
    const config = tinyConfig();
    const fleet = { ...config.params, topology: config.topologies[1]!.topology, hostSlots: 4 };
    const shared = { ...config.params, topology: TOPOLOGIES.shared };
    const carryFleet = await runLoop('carry', fleet);
    expect(carryFleet.engines).toHaveLength(2);
    expect(carryFleet.engineMsDuringTraining).toBeGreaterThan(0);
    expect((await runLoop('sync', fleet)).engineMsDuringTraining).toBe(0);
    expect((await runLoop('carry', shared)).engineMsDuringTraining).toBe(0);
    // Both replicas served sessions.
    const f = loopFigures(carryFleet, fleet.topology);
    expect(f.busyRollout).toBeGreaterThan(0);
  });

  it('the benchmark\'s text: parameters, sources, workload, each topology with a row per loop, its goals, the sensitivity rows', async () => {
    const text = await runGpuBench(tinyConfig());
    expect(text).toContain('GPU: simulated qwen3-8b-h100');
    expect(text).toContain('Trainer step:');
    expect(text).toContain('Sources of the constants:');
    expect(text).toContain('NVLink 4');
    for (const label of ['### one shared GPU', '### (b) 4 engine replicas', '(i) synchronous', '(ii) polar serve today', 'tail carry', 'tail cancel', 'as measured above', 'tool time x2']) expect(text).toContain(label);
    // Shared: whole-loop useful time + the five of issue 25; disaggregated (b): 2x, rollout-GPU utilisation, tail waste.
    expect(text.split('\n').filter((line) => /^- (met|MISSED): /.test(line))).toHaveLength(9);
    expect(text).toMatch(/- (met|MISSED): whole-loop useful GPU time >= 95%/);
    expect(text).toMatch(/- (met|MISSED): rollout-GPU effective utilisation >= 95% \(Polar reports 87.7%\)/);
  });

  it('varyWorkload scales tool time only, output length through the sampled tokens', () => {
    const { params } = tinyConfig();
    const base = params.workload.sampleSession('pi', seededRandom(1));
    const slow = varyWorkload(params.workload, { label: '', toolScale: 2 }).sampleSession('pi', seededRandom(1));
    expect(slow.turns.map((turn) => turn.toolMs)).toEqual(base.turns.map((turn) => turn.toolMs * 2));
    expect(slow.initMs).toBe(base.initMs);
    const long = varyWorkload(params.workload, { label: '', outputScale: 2 }).sampleSession('pi', seededRandom(1));
    const mean = (plan: typeof base) => plan.turns.reduce((sum, turn) => sum + turn.outputTokens, 0) / plan.turns.length;
    expect(mean(long)).toBeGreaterThan(1.5 * mean(base));
  });
});
