// The soak's 60-second version: 64 sessions through a real gateway process and the simulator, kill -9 at the end.
import { describe, expect, it } from 'vitest';
import { FD_NOISE, renderSoakReport, runSoak, SOAK_DEFAULTS, type SoakOptions } from './soak.js';

describe('soak (60 s)', () => {
  it('loses no call a client saw finish, keeps RSS flat after warm-up and leaks no fds', async () => {
    // 12 turns: every session slot starts a fresh session about three times, so per-session state must be released for RSS to stay flat.
    const options: SoakOptions = { ...SOAK_DEFAULTS, durationMs: 60_000, turns: 12, thinkMs: 1000, warmupFraction: 0.4, log: () => undefined };
    const result = await runSoak(options);
    const report = renderSoakReport(options, result);
    process.stdout.write(`${report}\n`);
    expect(result.failures, report).toEqual([]);
    expect(result.lost, report).toEqual([]);
    expect(result.seen, report).toBeGreaterThan(500);
    expect(result.rssGrowth, report).toBeLessThan(0.1);
    expect(result.fdGrowth, report).toBeLessThanOrEqual(FD_NOISE);
  }, 180_000);
});
