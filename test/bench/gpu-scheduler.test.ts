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
    variations: [{ label: 'tool time x2', toolScale: 2 }],
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
      const f = loopFigures(world);
      expect(f.sessionsTrained).toBe(8);
      expect(f.effectiveRollout).toBeGreaterThan(0);
      expect(f.effectiveRollout).toBeLessThanOrEqual(f.busyRollout + 1e-9);
      if (kind === 'sync') expect(f.staleness).toEqual({ mean: 0, max: 0 });
      else expect(f.staleness.max).toBeLessThanOrEqual(params.maxStaleness);
    }
  });

  it('the benchmark\'s text: parameters, workload, a row per loop, the goals, the sensitivity rows', async () => {
    const text = await runGpuBench(tinyConfig());
    expect(text).toContain('GPU: simulated qwen3-8b-h100');
    expect(text).toContain('Trainer step:');
    for (const label of ['(i) synchronous', '(ii) polar serve today', 'tail carry', 'tail cancel', 'as measured above', 'tool time x2']) expect(text).toContain(label);
    expect(text.split('\n').filter((line) => /^- (met|MISSED): /.test(line))).toHaveLength(5);
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
