// What a session container used, read from its own cgroup (v2: memory.peak or memory.current, cpu.stat
// usage_usec; v1: memory.max_usage_in_bytes, cpuacct.usage in ns) through an exec, as read-oom-kills.ts
// reads the OOM counter: the runtime stays the only one talking to Docker.
import type { ContainerHandle } from '../../runtime/container-runtime.js';
import type { HarnessFootprint } from './host-capacity.js';

const READ_USAGE = [
  'for f in memory.peak memory.current cpu.stat; do [ -r /sys/fs/cgroup/$f ] && { echo "== $f"; cat /sys/fs/cgroup/$f; }; done',
  'for f in memory/memory.max_usage_in_bytes cpuacct/cpuacct.usage; do [ -r /sys/fs/cgroup/$f ] && { echo "== $f"; cat /sys/fs/cgroup/$f; }; done',
  'true',
].join('; ');

/** Peak memory and mean CPU of the container since it started `wallMs` ago; null when the cgroup cannot be read. Never throws. */
export async function readContainerFootprint(handle: ContainerHandle, wallMs: number): Promise<Omit<HarnessFootprint, 'samples'> | null> {
  try {
    const result = await handle.exec(['sh', '-c', READ_USAGE], { timeoutMs: 10_000 });
    return parseContainerFootprint(result.stdout, wallMs);
  } catch {
    return null;
  }
}

/** Parses the `== file` sections READ_USAGE prints. */
export function parseContainerFootprint(text: string, wallMs: number): Omit<HarnessFootprint, 'samples'> | null {
  const sections = new Map<string, string>();
  for (const part of text.split(/^== /m).slice(1)) {
    const newline = part.indexOf('\n');
    sections.set(part.slice(0, newline).trim(), part.slice(newline + 1).trim());
  }
  const number = (name: string): number | null => {
    const value = sections.get(name);
    return value === undefined || !/^\d+$/.test(value) ? null : Number(value);
  };
  const peak = number('memory.peak') ?? number('memory.current') ?? number('memory/memory.max_usage_in_bytes');
  const usageUsec = /^usage_usec (\d+)$/m.exec(sections.get('cpu.stat') ?? '')?.[1];
  const cpuNs = number('cpuacct/cpuacct.usage');
  const cpuSeconds = usageUsec !== undefined ? Number(usageUsec) / 1e6 : cpuNs !== null ? cpuNs / 1e9 : null;
  if (peak === null || cpuSeconds === null || wallMs <= 0) return null;
  return { peakMemoryBytes: peak, meanCpuCores: cpuSeconds / (wallMs / 1000) };
}
