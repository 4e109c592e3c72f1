// Scenario runs: warm-up per target, then targets interleaved round by round; any failure aborts.
import { describe, expect, it } from 'vitest';
import { measureScenario, type Scenario } from './measure-scenario.js';
import { useProxiedUpstream } from './use-proxied-upstream.js';

const SCENARIO: Scenario = { label: 'JSON c=2', stream: false, concurrency: 2, rounds: 3, requestsPerRound: 4, warmupRequests: 2 };

describe('measureScenario', () => {
  const servers = useProxiedUpstream();

  it('warms every target up, then interleaves them A B A B ... and keeps per-round samples', async () => {
    const order: string[] = [];
    const samples = await measureScenario({
      scenario: SCENARIO,
      targets: [
        { name: 'a', url: `${servers.upstream.url}/v1/chat/completions` },
        { name: 'b', url: `${servers.proxy.url}/v1/chat/completions` },
      ],
      body: Buffer.from('{"stream":false}'),
      headersFor: () => ({}),
      onBatch: (target, round) => order.push(`${target}${round === 'warm-up' ? 'w' : round}`),
    });
    expect(order).toEqual(['aw', 'bw', 'a0', 'b0', 'a1', 'b1', 'a2', 'b2']);
    for (const name of ['a', 'b'] as const) {
      const target = samples.get(name);
      expect(target?.requests).toBe(12);
      expect(target?.lastByteMs).toHaveLength(12);
      expect(target?.roundLastByteMs.map((round) => round.length)).toEqual([4, 4, 4]);
      expect(target?.roundFirstByteMs).toHaveLength(3);
      expect(target?.wallMs).toBeGreaterThan(0);
    }
  });

  it('throws naming the target when a request fails', async () => {
    await expect(
      measureScenario({
        scenario: SCENARIO,
        targets: [{ name: 'broken', url: `${servers.upstream.url}/v1/nope` }],
        body: Buffer.from('{}'),
        headersFor: () => ({}),
      }),
    ).rejects.toThrow(/JSON c=2 against broken: 2 of 2 requests failed; first: HTTP 404/);
  });
});
