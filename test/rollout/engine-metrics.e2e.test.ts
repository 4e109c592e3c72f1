// A real rollout (Pi in Docker) against the simulator with a GPU profile: the engine's /metrics are polled
// during the run, its metrics events carry them, and the run stores its engine totals (tokens processed,
// effective utilisation against the profile's ceiling, peak KV usage), which `polar runs show` prints. Without a
// GPU profile there is no ceiling: `polar rollout` then keeps quiet about it unless asked (--verbose).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { RolloutEvent } from '../../src/rollout/rollout-events.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import type { EngineUsageReport } from '../../src/upstream/metrics/engine-usage.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { runInProcess } from '../helpers/run-in-process.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();

describe.skipIf(runtime === undefined)('engine metrics of a rollout (Docker, real Pi, simulated GPU)', () => {
  let dir: string;
  let store: Store;

  beforeAll(async () => {
    const [record] = (await loadDataset(EXAMPLE_DATASET)) as [SwebenchRecord];
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: instanceImageName(record), baseCommit: record.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-engine-metrics-'));
    store = openStore(path.join(dir, 'polar.db'));
  });

  afterAll(() => {
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('polls the engine during the run and stores its totals with the run', async () => {
    const events: RolloutEvent[] = [];
    const { run } = await runRollout(
      { harness: 'pi', datasetPath: EXAMPLE_DATASET, upstream: 'sim:oracle?gpu=qwen3-8b-h100', samples: 2, timeoutSeconds: 300, evaluate: false, runName: 'engine-metrics' },
      { runtime: runtime as ContainerRuntime, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: (event) => events.push(event), metricsIntervalMs: 200 },
    );
    const stats = store.runs.get(run.id)?.stats as { engine: EngineUsageReport; modelBusyFraction: number };
    const { total, replicas } = stats.engine;
    expect(replicas).toHaveLength(1);
    expect(total.ceilingSource).toBe('profile');
    expect(total.processedTokens).toBeGreaterThan(100);
    expect(total.generationTokens).toBeGreaterThan(0);
    expect(total.effectiveUtilisation).toBeGreaterThan(0);
    expect(total.effectiveUtilisation).toBeLessThan(stats.modelBusyFraction);
    expect(total.unknown).toBeNull();
    expect(total.peakKvUsage).toBeGreaterThan(0);
    expect(total.preemptions).toBe(0);
    const end = events.find((event) => event.type === 'run-end');
    expect(end).toMatchObject({ type: 'run-end', engine: { effectiveUtilisation: total.effectiveUtilisation, processedTokens: total.processedTokens } });
    const withEngine = events.filter((event) => event.type === 'metrics' && event.engine !== undefined);
    expect(withEngine.length).toBeGreaterThan(0);
    expect(withEngine.at(-1)).toMatchObject({ engine: { replicas: 1, reporting: 1, effectiveUtilisation: total.effectiveUtilisation, ceilingSource: 'profile' } });

    let stdout = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stdout += String(chunk);
      return true;
    });
    try {
      expect(await main(['node', 'polar', 'runs', 'show', 'engine-metrics', '--db', store.path])).toBe(0);
    } finally {
      vi.restoreAllMocks();
    }
    expect(stdout).toMatch(/^engine: [\d,]+ tokens processed, effective GPU utilisation \d+\.\d% of [\d,]+ tokens\/s \(profile\), 0 preemptions, peak KV usage \d+%$/m);
  }, 300_000);

  it('`polar rollout` to a stdout that is not a terminal prints the engine totals once', async () => {
    expect(process.stdout.isTTY).not.toBe(true);
    const { exitCode, stdout, stderr } = await runInProcess(
      ['rollout', '--harness', 'pi', '--dataset', EXAMPLE_DATASET, '--upstream', 'sim:oracle?gpu=qwen3-8b-h100', '--no-eval', '--run-name', 'engine-line-once', '--db', store.path],
    );
    expect(exitCode, stderr).toBe(0);
    expect(stdout).toMatch(/^Run engine-line-once finished in /m);
    expect(stdout.match(/^engine: .*tokens processed.*$/gm)).toHaveLength(1);
    expect(stdout).toMatch(/^engine: [\d,]+ tokens processed, effective GPU utilisation \d+\.\d% of [\d,]+ tokens\/s \(profile\)/m);
  }, 300_000);

  it('`polar rollout` on the simulator without a GPU profile says nothing about GPU utilisation, unless --verbose', async () => {
    const args = ['rollout', '--harness', 'pi', '--dataset', EXAMPLE_DATASET, '--upstream', 'sim:oracle', '--no-eval', '--db', store.path];
    const quiet = await runInProcess([...args, '--run-name', 'no-gpu-quiet']);
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(quiet.stdout).not.toMatch(/^engine:/m);
    expect(quiet.stdout).not.toMatch(/utilisation|ceiling/);
    // Prose wraps at 100 columns; a command to run next is one line however long its --db path.
    for (const line of quiet.stdout.trimEnd().split('\n').filter((text) => !/^(Next: | {6})polar /.test(text))) expect(line.length, line).toBeLessThanOrEqual(100);
    const verbose = await runInProcess([...args, '--run-name', 'no-gpu-verbose', '--verbose']);
    expect(verbose.exitCode, verbose.stderr).toBe(0);
    expect(verbose.stdout).toMatch(/^run no-gpu-verbose done in /m);
    expect(verbose.stdout).toMatch(/^engine: [\d,]+ tokens processed, 0 preemptions, peak KV usage \d+%; effective GPU utilisation unknown: the simulator has no GPU ceiling without a GPU profile/m);
    expect(verbose.stdout).toMatch(/\[create \d+ ms, prepare /);
  }, 300_000);
});
