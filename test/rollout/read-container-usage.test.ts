// The one read of a container's cgroup after its agent ended: OOM kills (v1 and v2), peak memory and CPU time.
import { describe, expect, it } from 'vitest';
import { parseContainerUsage } from '../../src/rollout/read-container-usage.js';

describe('parseContainerUsage', () => {
  it('reads cgroup v2: memory.events oom_kill, memory.peak, cpu.stat usage_usec', () => {
    const text = '== memory.events\nlow 0\nhigh 0\nmax 4\noom 1\noom_kill 1\noom_group_kill 0\n== memory.peak\n524288000\n== memory.current\n100\n== cpu.stat\nusage_usec 30000000\nuser_usec 1\n';
    expect(parseContainerUsage(text)).toEqual({ oomKills: 1, peakMemoryBytes: 524288000, cpuSeconds: 30 });
  });

  it('falls back to memory.current, and reads cgroup v1 files', () => {
    expect(parseContainerUsage('== memory.current\n1000\n== cpu.stat\nusage_usec 1000000\n')).toEqual({ oomKills: 0, peakMemoryBytes: 1000, cpuSeconds: 1 });
    const v1 = '== memory/memory.oom_control\noom_kill_disable 0\nunder_oom 0\noom_kill 2\n== memory/memory.max_usage_in_bytes\n2000\n== cpuacct/cpuacct.usage\n2000000000\n';
    expect(parseContainerUsage(v1)).toEqual({ oomKills: 2, peakMemoryBytes: 2000, cpuSeconds: 2 });
  });

  it('is 0 OOM kills and null usage when the cgroup says nothing usable', () => {
    expect(parseContainerUsage('')).toEqual({ oomKills: 0, peakMemoryBytes: null, cpuSeconds: null });
    expect(parseContainerUsage('== memory.peak\nmax\n== cpu.stat\nuser_usec 5\n')).toEqual({ oomKills: 0, peakMemoryBytes: null, cpuSeconds: null });
  });
});
