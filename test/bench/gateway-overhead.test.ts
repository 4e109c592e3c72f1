// The whole benchmark end to end at a tiny size: real processes (fake vLLM, floor proxy, `polar
// proxy`), every call captured, the tables printed, and nothing left behind.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { gatewayScenarios, runGatewayOverhead } from './gateway-overhead.js';

describe('runGatewayOverhead', () => {
  it('measures all three targets in every scenario and checks polar stored every call', async () => {
    const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('polar-bench-gateway-')));
    const wanted = ['JSON c=1 10 KB', 'JSON c=64 10 KB', 'stream c=1 10 KB', 'stream c=64 10 KB', 'stream c=64 69 KB', 'JSON c=1 10 KB +500 ms', 'anthropic stream c=1 78 KB', 'anthropic JSON c=64 78 KB'];
    const scenarios = gatewayScenarios(0.002)
      .filter((scenario) => wanted.includes(scenario.label))
      .map((scenario) => ({ ...scenario, rounds: 2 }));
    expect(scenarios).toHaveLength(wanted.length);
    const lines: string[] = [];
    const text = await runGatewayOverhead({ scenarios, log: (line) => lines.push(line) });

    for (const label of wanted) expect(text).toContain(`| ${label} `);
    // The CPU row: CPU time is read in 10 ms ticks, so at this tiny size a process may show 0.00 and the ratio n/a.
    // Whole process, then main thread (event loop), then RSS.
    expect(text).toMatch(/\| stream c=64 69 KB +\| +[\d.]+ +\| +[\d.]+ +\| +(?:[\d.]+x|n\/a) +\| +[\d.]+ +\| +[\d.]+ +\| +(?:[\d.]+x|n\/a) +\| +\d+ +\| +\d+ +\|/);
    // The storage table is the instant upstream's gateway: every call it was sent is stored.
    const requests = scenarios.filter((scenario) => !scenario.upstreamDelayMs).reduce((sum, scenario) => sum + scenario.warmupRequests + scenario.rounds * scenario.requestsPerRound, 0);
    expect(text).toContain(`polar storage: ${requests} calls (${requests} ok)`);
    expect(lines.some((line) => line.includes('JSON c=1 10 KB +500 ms done'))).toBe(true);
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith('polar-bench-gateway-') && !before.has(name));
    expect(after.filter((name) => existsSync(`${tmpdir()}/${name}`))).toEqual([]);
  }, 120_000);
});
