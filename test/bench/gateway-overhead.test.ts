// The whole benchmark end to end at a tiny size: real processes (fake vLLM, floor proxy, `polar
// proxy`), every call captured, the tables printed, and nothing left behind.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { gatewayScenarios, runGatewayOverhead } from './gateway-overhead.js';

describe('runGatewayOverhead', () => {
  it('measures all three targets in every scenario and checks polar stored every call', async () => {
    const before = new Set(readdirSync(tmpdir()).filter((name) => name.startsWith('polar-bench-gateway-')));
    const scenarios = gatewayScenarios(0.002).map((scenario) => ({ ...scenario, rounds: 2 }));
    const lines: string[] = [];
    const text = await runGatewayOverhead({ scenarios, log: (line) => lines.push(line) });

    for (const label of ['JSON c=1', 'JSON c=64', 'stream c=1', 'stream c=64']) expect(text).toContain(`| ${label}`);
    const requests = scenarios.reduce((sum, scenario) => sum + scenario.warmupRequests + scenario.rounds * scenario.requestsPerRound, 0);
    expect(text).toContain(`polar storage: ${requests} calls (${requests} ok)`);
    expect(lines.some((line) => line.includes('stream c=64 done'))).toBe(true);
    const after = readdirSync(tmpdir()).filter((name) => name.startsWith('polar-bench-gateway-') && !before.has(name));
    expect(after.filter((name) => existsSync(`${tmpdir()}/${name}`))).toEqual([]);
  }, 120_000);
});
