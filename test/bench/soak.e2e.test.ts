// The soak's 60-second version: 64 sessions through a real gateway process and the simulator, kill -9 at the end.
import { describe, expect, it } from 'vitest';
import { FD_SLACK, renderSoakReport, runSoak, SOAK_DEFAULTS, type SoakOptions } from './soak.js';

describe('soak (60 s)', () => {
  it('loses no call a client saw finish, keeps RSS flat after warm-up and leaks no fds', async () => {
    // 8 turns: every session slot starts a fresh session several times, so per-session state must be released for RSS to stay flat.
    const options: SoakOptions = { ...SOAK_DEFAULTS, durationMs: 60_000, turns: 8, thinkMs: 1000, warmupFraction: 0.5, log: () => undefined };
    const result = await runSoak(options);
    const report = renderSoakReport(options, result);
    process.stdout.write(`${report}\n`);
    expect(result.failures, report).toEqual([]);
    expect(result.lost, report).toEqual([]);
    expect(result.seen, report).toBeGreaterThan(300);
    // The goal (< 10%) is checked by the 10-minute benchmark. One minute on a shared 2-core machine does not
    // always reach steady state (measured: 4.6% and 5.9% at load 7, 21% at load 18, with 0 lost calls), so CI
    // bounds it at 30%: retaining every call's record would add more than that.
    expect(result.rssGrowth, report).toBeLessThan(0.3);
    expect(result.fdGrowth, report).toBeLessThanOrEqual(FD_SLACK);
  }, 180_000);
});
