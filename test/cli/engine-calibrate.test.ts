// `polar engine calibrate` in process against the simulator on a real socket: the JSON result, the calibration
// stored in $POLAR_HOME under the upstream, model and engine version, and found again by a later run's poller.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../helpers/run-in-process.js';
import { noopPolicy } from '../../src/sim/policies/noop.js';
import { startSimServer } from '../../src/sim/sim-server.js';
import { readCalibrations } from '../../src/upstream/metrics/calibration-store.js';
import { startEngineMetrics } from '../../src/upstream/metrics/start-engine-metrics.js';
import type { UpstreamProfile } from '../../src/upstream/preflight/upstream-profile.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('polar engine calibrate', () => {
  it('measures, prints JSON, stores the ceiling in $POLAR_HOME for a later poller of that upstream, model and version; refuses a load that never saturates', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'polar-home-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    vi.stubEnv('POLAR_HOME', home);
    const sim = await startSimServer({ policy: noopPolicy(), gpu: { profile: 'qwen3-8b-h100', maxNumBatchedTokens: 2048 } });
    cleanups.push(() => sim.close());
    const args = ['engine', 'calibrate', '--upstream', sim.url, '--duration', '5', '--warmup', '1', '--concurrency', '24', '--prompt-tokens', '2048', '--max-tokens', '8'];
    const { exitCode, stdout, stderr } = await runInProcess([...args, '--json']);
    expect(stderr).toBe('');
    expect(exitCode).toBe(0);
    const result = JSON.parse(stdout) as { url: string; engine: string; engineVersion: string; tokensPerSecond: number; profileCeilingTokensPerSecond: number; storedIn: string };
    expect(result).toMatchObject({ url: sim.url, engine: 'vllm', engineVersion: '0.11.0-polar-sim', storedIn: path.join(home, 'engine-calibrations.json') });
    expect(Math.abs(result.tokensPerSecond / result.profileCeilingTokensPerSecond - 1)).toBeLessThan(0.15);
    const [stored] = readCalibrations(result.storedIn);
    expect(stored).toMatchObject({ url: sim.url, engine: 'vllm', model: 'polar-sim-qwen3', engineVersion: '0.11.0-polar-sim', tokensPerSecond: result.tokensPerSecond });
    // A later run's poller of the same upstream, model and version: the stored calibration is its ceiling
    // unless the engine reports a profile of its own (this one does: the profile wins).
    const profile = { url: sim.url, engine: 'vllm', model: 'polar-sim-qwen3', engineVersion: '0.11.0-polar-sim' } as UpstreamProfile;
    const poller = startEngineMetrics([sim.url], [profile], { intervalMs: 0 });
    cleanups.push(() => poller.close());
    expect(poller.snapshot().replicas[0]?.ceiling).toMatchObject({ source: 'calibration', tokensPerSecond: result.tokensPerSecond });
    await poller.pollNow();
    expect(poller.snapshot().replicas[0]?.ceiling?.source).toBe('profile');
    const otherVersion = startEngineMetrics([sim.url], [{ ...profile, engineVersion: '0.12.0' }], { intervalMs: 0 });
    cleanups.push(() => otherVersion.close());
    expect(otherVersion.snapshot().replicas[0]?.ceiling).toBeNull();
    const other = startEngineMetrics(['http://127.0.0.1:1/v1'], [{ ...profile, url: 'http://127.0.0.1:1/v1' }], { intervalMs: 0 });
    cleanups.push(() => other.close());
    expect(other.snapshot().replicas[0]?.ceiling).toBeNull();
    const plain = await startSimServer({ policy: noopPolicy() });
    cleanups.push(() => plain.close());
    const again = await runInProcess(['engine', 'calibrate', '--upstream', plain.url, '--duration', '2', '--warmup', '0', '--concurrency', '1', '--prompt-tokens', '64']);
    // Without a GPU the simulator runs every call on its own clock: nothing ever waits, no peak to measure.
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("never filled the engine's queue");
  }, 60_000);

  it('a sim: upstream is measured but not stored (it lives only for the command)', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'polar-home-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    vi.stubEnv('POLAR_HOME', home);
    const { exitCode, stdout } = await runInProcess(['engine', 'calibrate', '--upstream', 'sim:noop?gpu=qwen3-8b-h100&max-num-batched-tokens=2048', '--duration', '4', '--warmup', '1', '--concurrency', '24', '--prompt-tokens', '2048', '--max-tokens', '8']);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/^peak \(sustained\)\s+[\d,]+ tokens\/s over [\d.]+ s with requests waiting$/m);
    expect(stdout).toMatch(/^profile ceiling\s+[\d,]+ tokens\/s \(measured \d+\.\d% of it\)$/m);
    expect(stdout).toContain('not stored: a sim: upstream lives only for this command');
    expect(readCalibrations(path.join(home, 'engine-calibrations.json'))).toEqual([]);
  }, 60_000);
});
