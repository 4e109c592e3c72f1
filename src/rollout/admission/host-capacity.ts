// Host admission: how many harness containers this host holds at once, from what a container of each harness
// was measured to use (peak memory and mean CPU of its cgroup over a real session) and what the host has.
// Memory: the free memory less a reserve, over the peak a session reaches (a session at its peak must not
// push the host into swap or the OOM killer), plus the sessions already running (their memory is already
// taken from the free figure). CPU: the cores times a target share, over the mean CPU a session uses.
// Before any measurement a harness counts with `DEFAULT_FOOTPRINT` (deliberately generous).
import type { ContainerUsage } from '../read-container-usage.js';

/** What one harness container was measured to use. */
export interface HarnessFootprint {
  /** Peak memory of the container's cgroup (memory.peak, else memory.current at the end), bytes. */
  peakMemoryBytes: number;
  /** CPU time of the container's cgroup over the time it worked (init and agent, not its wait for a run slot), in cores. */
  meanCpuCores: number;
  /** Sessions measured (0 for the default). */
  samples: number;
}

/** A footprint for harnesses not measured yet: 1 GiB at peak, half a core on average. */
export const DEFAULT_FOOTPRINT: HarnessFootprint = { peakMemoryBytes: 2 ** 30, meanCpuCores: 0.5, samples: 0 };

/** A container's footprint from its cgroup usage and the time it worked (ms); null when the cgroup said nothing usable. */
export function footprintOfUsage(usage: ContainerUsage, workedMs: number): Omit<HarnessFootprint, 'samples'> | null {
  if (usage.peakMemoryBytes === null || usage.cpuSeconds === null || !(workedMs > 0)) return null;
  return { peakMemoryBytes: usage.peakMemoryBytes, meanCpuCores: usage.cpuSeconds / (workedMs / 1000) };
}

export interface HostResources {
  /** Memory free now (os.freemem()), bytes. */
  freeMemoryBytes: number;
  /** CPU cores (os.availableParallelism()). */
  cores: number;
}

export interface HostCapacityOptions {
  /** Memory left for everything else: polar, the engine's host side, the page cache (default 2 GiB). */
  reserveMemoryBytes?: number;
  /** Share of the cores the harness containers may use on average (default 0.8). */
  cpuShare?: number;
}

export interface HostCap {
  /** Containers the host holds at once (at least 1). */
  sessions: number;
  /** Which resource binds. */
  boundBy: 'memory' | 'cpu';
  byMemory: number;
  byCpu: number;
}

/** The cap with `running` containers already up (their memory is part of what is no longer free). */
export function hostSessionCap(host: HostResources, footprint: HarnessFootprint, running: number, options: HostCapacityOptions = {}): HostCap {
  const reserve = options.reserveMemoryBytes ?? 2 * 2 ** 30;
  const cpuShare = options.cpuShare ?? 0.8;
  const byMemory = running + Math.floor(Math.max(0, host.freeMemoryBytes - reserve) / Math.max(1, footprint.peakMemoryBytes));
  const byCpu = Math.floor((host.cores * cpuShare) / Math.max(0.01, footprint.meanCpuCores));
  const sessions = Math.max(1, Math.min(byMemory, byCpu));
  return { sessions, boundBy: byMemory <= byCpu ? 'memory' : 'cpu', byMemory, byCpu };
}

/** Measured footprints per harness: each new measurement folds into a running mean (peaks keep their maximum). */
export class HarnessFootprints {
  private readonly byHarness = new Map<string, HarnessFootprint>();

  record(harness: string, measured: Omit<HarnessFootprint, 'samples'>): void {
    const seen = this.byHarness.get(harness);
    if (seen === undefined) {
      this.byHarness.set(harness, { ...measured, samples: 1 });
      return;
    }
    const samples = seen.samples + 1;
    this.byHarness.set(harness, {
      peakMemoryBytes: Math.max(seen.peakMemoryBytes, measured.peakMemoryBytes),
      meanCpuCores: seen.meanCpuCores + (measured.meanCpuCores - seen.meanCpuCores) / samples,
      samples,
    });
  }

  /** The harness's measured footprint, else the default. */
  of(harness: string): HarnessFootprint {
    return this.byHarness.get(harness) ?? DEFAULT_FOOTPRINT;
  }

  /** The most demanding footprint measured (largest peak memory, and largest mean CPU), else the default. */
  largest(): HarnessFootprint {
    const measured = [...this.byHarness.values()];
    if (measured.length === 0) return DEFAULT_FOOTPRINT;
    return {
      peakMemoryBytes: Math.max(...measured.map((footprint) => footprint.peakMemoryBytes)),
      meanCpuCores: Math.max(...measured.map((footprint) => footprint.meanCpuCores)),
      samples: measured.reduce((sum, footprint) => sum + footprint.samples, 0),
    };
  }

  all(): Record<string, HarnessFootprint> {
    return Object.fromEntries(this.byHarness);
  }
}
