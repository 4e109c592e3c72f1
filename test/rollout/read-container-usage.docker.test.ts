// The cgroup read polar makes when an agent ends, in a real container: a process killed by the container's memory
// limit is counted (Docker's inspect State.OOMKilled stays false while the container's main process lives), and
// the same read gives the peak memory and CPU time the footprint of a harness is made of.
import { afterAll, describe, expect, it } from 'vitest';
import { readContainerUsage } from '../../src/rollout/read-container-usage.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { dockerForTests, TEST_IMAGE, TEST_RUN_ID, testLabels } from '../runtime/docker-test-support.js';
import { runFilter } from '../../src/runtime/labels.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();
const MIB = 2 ** 20;

describe.skipIf(runtime === undefined)('readContainerUsage (Docker)', () => {
  afterAll(async () => {
    await runtime?.removeContainers(runFilter(TEST_RUN_ID));
  });

  it('counts no OOM kill in a fresh container, then the process the memory limit killed, with the peak and CPU time it took', async () => {
    const docker = runtime as ContainerRuntime;
    const handle = await docker.createContainer({ image: TEST_IMAGE, labels: testLabels('oom'), limits: { memoryBytes: 64 * MIB } });
    try {
      const fresh = await readContainerUsage(handle);
      expect(fresh.oomKills).toBe(0);
      expect(fresh.peakMemoryBytes).toBeGreaterThan(0);
      const hog = await handle.exec(['sh', '-c', 'head -c 1000m /dev/zero | tail > /dev/null'], { timeoutMs: 120_000 });
      expect(hog.exitCode).toBe(137);
      const after = await readContainerUsage(handle);
      expect(after.oomKills).toBeGreaterThanOrEqual(1);
      // The hog reached the limit: the peak is near 64 MiB (memory.current, the fallback, would be far lower now).
      expect(after.peakMemoryBytes).toBeGreaterThan(32 * MIB);
      expect(after.peakMemoryBytes).toBeLessThanOrEqual(64 * MIB);
      expect(after.cpuSeconds).toBeGreaterThan(fresh.cpuSeconds ?? 0);
    } finally {
      await handle.remove();
    }
  });
});
