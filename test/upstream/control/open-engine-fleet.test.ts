// The fleet `polar engine …` and `polar serve` both open: the family asked of each server unless named, the
// control features probed unless a preflight already found them (then the servers are not asked again).
import { describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../../src/config/sampling-policy.js';
import { openEngineFleet } from '../../../src/upstream/control/open-engine-fleet.js';
import { EngineControlError } from '../../../src/upstream/engines/engine-control.js';
import { inspectUpstream } from '../../../src/upstream/preflight/inspect-upstream.js';
import { testSims } from '../../helpers/start-test-sims.js';

const sim = testSims();

describe('openEngineFleet', () => {
  it('asks each server its family unless named, and probes what it offers', async () => {
    const [sglang, vllm] = await Promise.all([sim({ engine: 'sglang' }), sim({ control: { devMode: true } })]);
    const fleet = await openEngineFleet([{ url: `${sglang.url}/` }, { url: vllm.url, engine: 'vllm' }]);
    expect(fleet.replicas.map((replica) => [replica.url, replica.engine, replica.capabilities?.engine])).toEqual([
      [sglang.url, 'sglang', 'sglang'],
      [vllm.url, 'vllm', 'vllm'],
    ]);
    expect(sglang.control.log.map((entry) => entry.path)).toContain('/openapi.json');
    expect(vllm.control.log.map((entry) => entry.path)).toContain('/is_paused');
  });

  it('takes what a preflight found without asking the server again', async () => {
    const server = await sim({ control: { devMode: true } });
    const profile = await inspectUpstream({ upstreamUrl: server.url, sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile.control?.features['pause-keep'].available).toBe('yes');
    const asked = server.control.log.length;
    const fleet = await openEngineFleet([{ url: server.url, engine: profile.engine, capabilities: profile.control! }]);
    expect(server.control.log.length).toBe(asked);
    expect(fleet.replicas[0]?.capabilities).toBe(profile.control);
    expect(() => fleet.require('sleep', 'sleep')).toThrow(/--enable-sleep-mode/);
  });

  it('a replica it probes that does not answer is an EngineControlError saying how to fix it', async () => {
    const server = await sim({});
    const url = server.url;
    await server.close();
    const error = await openEngineFleet([{ url, engine: 'vllm' }]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EngineControlError);
    expect((error as EngineControlError).message).toBe(`the vLLM replica ${url} does not answer`);
    expect((error as EngineControlError).hint).toMatch(/Start the server/);
  });
});
