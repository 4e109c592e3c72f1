// `polar engine calibrate` against the simulator with a GPU profile: the peak measured from the engine's own
// /metrics under a full-batch load is close to the profile's ceiling; an engine without /metrics or a load
// that never fills the queue is refused with the fix; calibrations are stored per upstream, model and version.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../../src/config/sampling-policy.js';
import { PolarError } from '../../../src/errors.js';
import { noopPolicy } from '../../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../../src/sim/sim-server.js';
import { calibrateEngine } from '../../../src/upstream/metrics/calibrate-engine.js';
import { CalibrationPrompts } from '../../../src/upstream/metrics/calibration-prompts.js';
import { calibratedCeilings, readCalibrations, saveCalibration, type StoredCalibration } from '../../../src/upstream/metrics/calibration-store.js';
import { inspectUpstream } from '../../../src/upstream/preflight/run-preflight.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function profileOf(options: Partial<SimServerOptions>): Promise<{ sim: SimServer; profile: Awaited<ReturnType<typeof inspectUpstream>> }> {
  const sim = await startSimServer({ policy: noopPolicy(), ...options });
  cleanups.push(() => sim.close());
  return { sim, profile: await inspectUpstream({ upstreamUrl: sim.url, sampling: DEFAULT_ROLLOUT_SAMPLING }) };
}

describe('calibrateEngine', () => {
  it("measures the simulated GPU's peak close to its profile ceiling, from the engine's own counters", async () => {
    // A 2048-token step budget: the ceiling is one full 2048-token prefill per step, which the load matches.
    const { sim, profile } = await profileOf({ gpu: { profile: 'qwen3-8b-h100', maxNumBatchedTokens: 2048 } });
    const ceiling = sim.engine.metrics().capacity.ceilingTokensPerSecond as number;
    const before = sim.engine.metrics();
    const result = await calibrateEngine(profile, { promptTokens: 2048, maxTokens: 8, concurrency: 24, durationMs: 8_000, warmupMs: 2_000 }, { intervalMs: 500 });
    expect(result.profileCeilingTokensPerSecond).toBe(ceiling);
    expect(result.seconds).toBeGreaterThan(4);
    expect(result.requests.failed).toBe(0);
    expect(result.requests.completed).toBeGreaterThan(20);
    expect(Math.abs(result.tokensPerSecond / ceiling - 1)).toBeLessThan(0.1);
    // Every load prompt was computed in full (distinct first blocks): the few hits are the seed chat's
    // template blocks, shared with the preflight's probes.
    const after = sim.engine.metrics();
    expect(after.prefixCacheHits - before.prefixCacheHits).toBeLessThan(0.001 * (after.prefixCacheQueries - before.prefixCacheQueries));
  }, 60_000);

  it('refuses an engine without /metrics, saying how to get them', async () => {
    const { profile } = await profileOf({ engine: 'sglang', gpu: { profile: 'qwen3-8b-h100' } });
    const error = await calibrateEngine(profile, { promptTokens: 512, maxTokens: 4, concurrency: 2, durationMs: 2_000, warmupMs: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PolarError);
    expect((error as PolarError).exitCode).toBe(5);
    expect((error as PolarError).hint).toContain('--enable-metrics');
  });

  it('refuses a load that never filled the queue (no peak to measure)', async () => {
    const { profile } = await profileOf({ gpu: { profile: 'qwen3-8b-h100' } });
    const error = await calibrateEngine(profile, { promptTokens: 64, maxTokens: 4, concurrency: 1, durationMs: 1_500, warmupMs: 0 }, { intervalMs: 250 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PolarError);
    expect((error as PolarError).message).toContain("never filled the engine's queue");
    expect((error as PolarError).hint).toContain('--concurrency');
  });
});

describe('calibration prompts', () => {
  it('are the pool ids, each prompt with its own start or stride', () => {
    const pool = Array.from({ length: 10 }, (_, index) => 100 + index);
    const prompts = new CalibrationPrompts(pool, 32);
    const made = Array.from({ length: 30 }, (_, index) => prompts.prompt(index));
    expect(made.every((prompt) => prompt.length === 32 && prompt.every((id) => pool.includes(id)))).toBe(true);
    expect(new Set(made.map((prompt) => prompt.slice(0, 16).join(','))).size).toBe(30);
  });
});

describe('stored calibrations', () => {
  it('are kept per upstream, model and engine version; a new measurement replaces the old', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'polar-calibrations-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'nested', 'engine-calibrations.json');
    expect(readCalibrations(file)).toEqual([]);
    const entry = (tokensPerSecond: number, engineVersion: string): StoredCalibration => ({
      url: 'http://gpu-0:8000/v1',
      engine: 'vllm',
      model: 'Qwen/Qwen3-8B',
      engineVersion,
      tokensPerSecond,
      measuredAt: '2026-11-20T10:00:00.000Z',
      load: { promptTokens: 4096, maxTokens: 16, concurrency: 128, seconds: 60 },
      saturatedSeconds: 48,
    });
    saveCalibration(file, entry(20_000, '0.11.0'));
    saveCalibration(file, entry(21_000, '0.12.0'));
    saveCalibration(file, entry(19_500, '0.11.0'));
    expect(readCalibrations(file).map((stored) => [stored.engineVersion, stored.tokensPerSecond])).toEqual([
      ['0.12.0', 21_000],
      ['0.11.0', 19_500],
    ]);
    const key = { url: 'http://gpu-0:8000/v1/', engine: 'vllm' as const, model: 'Qwen/Qwen3-8B', engineVersion: '0.11.0' };
    expect(calibratedCeilings(file, [key]).get(key.url)).toMatchObject({ tokensPerSecond: 19_500, source: 'calibration' });
    expect(calibratedCeilings(file, [{ ...key, model: 'other' }]).size).toBe(0);
    writeFileSync(file, '{"not": "ours"}');
    expect(() => readCalibrations(file)).toThrow(/is not polar.s file of engine calibrations/);
  });
});
