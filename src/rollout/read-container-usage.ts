// What a session container used, read once from inside after its agent ended (one exec: the runtime stays the
// only one talking to Docker): the memory cgroup's OOM-kill counter (v2 `memory.events`, v1
// `memory.oom_control`; Docker's inspect `State.OOMKilled` only turns true when the container's main process
// dies, not when an exec'd harness is killed), its peak memory (v2 `memory.peak`, else `memory.current`; v1
// `memory.max_usage_in_bytes`) and the CPU time it used since it started (v2 `cpu.stat` usage_usec; v1
// `cpuacct.usage` in ns).
import type { ContainerHandle } from '../runtime/container-runtime.js';

const FILES = ['memory.events', 'memory.peak', 'memory.current', 'cpu.stat', 'memory/memory.oom_control', 'memory/memory.max_usage_in_bytes', 'cpuacct/cpuacct.usage'];
const READ_USAGE = `for f in ${FILES.join(' ')}; do [ -r /sys/fs/cgroup/$f ] && { echo "== $f"; cat /sys/fs/cgroup/$f; }; done; true`;

export interface ContainerUsage {
  /** Processes the kernel's OOM killer ended in the container (0 when the cgroup cannot be read). */
  oomKills: number;
  /** Peak memory of the container's cgroup; null when unreadable. */
  peakMemoryBytes: number | null;
  /** CPU time the container used since it started; null when unreadable. */
  cpuSeconds: number | null;
}

const UNREADABLE: ContainerUsage = { oomKills: 0, peakMemoryBytes: null, cpuSeconds: null };

/** Contract: never throws; what cannot be read is 0 OOM kills and null usage. */
export async function readContainerUsage(handle: ContainerHandle): Promise<ContainerUsage> {
  try {
    const result = await handle.exec(['sh', '-c', READ_USAGE], { timeoutMs: 10_000 });
    return parseContainerUsage(result.stdout);
  } catch {
    return UNREADABLE;
  }
}

/** Parses the `== file` sections READ_USAGE prints. */
export function parseContainerUsage(text: string): ContainerUsage {
  const sections = new Map<string, string>();
  for (const part of text.split(/^== /m).slice(1)) {
    const newline = part.indexOf('\n');
    sections.set(part.slice(0, newline).trim(), part.slice(newline + 1).trim());
  }
  const number = (name: string): number | null => {
    const value = sections.get(name);
    return value === undefined || !/^\d+$/.test(value) ? null : Number(value);
  };
  let oomKills = 0;
  for (const name of ['memory.events', 'memory/memory.oom_control']) {
    for (const match of (sections.get(name) ?? '').matchAll(/^oom_kill (\d+)$/gm)) oomKills += Number(match[1]);
  }
  const usageUsec = /^usage_usec (\d+)$/m.exec(sections.get('cpu.stat') ?? '')?.[1];
  const cpuNs = number('cpuacct/cpuacct.usage');
  return {
    oomKills,
    peakMemoryBytes: number('memory.peak') ?? number('memory.current') ?? number('memory/memory.max_usage_in_bytes'),
    cpuSeconds: usageUsec !== undefined ? Number(usageUsec) / 1e6 : cpuNs !== null ? cpuNs / 1e9 : null,
  };
}
