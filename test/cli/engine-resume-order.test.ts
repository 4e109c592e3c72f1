// `polar engine resume` loads the weights before the engine samples again, against a simulator that behaves as
// current vLLM (its /is_sleeping is true while merely paused, its /wake_up resumes a paused scheduler): after
// `polar engine pause --mode keep` it never calls /wake_up, so the frozen request's every token after the pause
// is sampled with the new weights; after `polar engine sleep` it wakes first (polar recorded the sleep); and when
// neither the server nor polar's record can tell paused from asleep, it refuses with the flags that decide.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import type { SimServer } from '../../src/sim/sim-server.js';
import type { ChatCompletionChunkWire } from '../../src/upstream/vllm-api-types.js';
import { testSims } from '../helpers/start-test-sims.js';
import { until } from '../helpers/until.js';
import { sseData } from '../helpers/sse-data.js';
import { simWeightVersions } from '../helpers/sim-weight-versions.js';

const POLAR = path.resolve(import.meta.dirname, '../../bin/polar.js');
const LONG = 'The quick brown fox jumps over the lazy dog while the sun sets slowly behind the distant hills, and the river keeps running toward the sea.';
const sim = testSims();
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function freshHome(): string {
  const home = mkdtempSync(path.join(tmpdir(), 'polar-home-'));
  homes.push(home);
  return home;
}

const polar = (home: string, ...args: string[]) => execa(POLAR, ['engine', ...args], { reject: false, env: { POLAR_HOME: home } });

async function start(control: { sleepMode?: boolean }): Promise<SimServer> {
  // Slow enough that the call is still generating while the polar processes start (about a second each).
  return sim({ policy: scriptedPolicy({ turns: [], final: { content: `${LONG} ${LONG} ${LONG} ${LONG}` } }), latency: { firstTokenMs: 5, perTokenMs: 50 }, control: { devMode: true, ...control } });
}

/** A streamed call straight to the engine: its sampled ids and raw logprobs as they arrive. */
function streamChat(url: string): { ids: number[]; logprobs: number[]; done: Promise<void> } {
  const state = { ids: [] as number[], logprobs: [] as number[] };
  const body = { model: 'polar-sim-qwen3', messages: [{ role: 'user', content: 'Tell me.' }], logprobs: true, return_token_ids: true, stream: true, chat_template_kwargs: { enable_thinking: false } };
  const done = (async () => {
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    for await (const data of sseData(response)) {
      if (data === '[DONE]') continue;
      const choice = (JSON.parse(data) as ChatCompletionChunkWire).choices[0];
      state.ids.push(...(choice?.token_ids ?? []));
      state.logprobs.push(...(choice?.logprobs?.content?.map((entry) => entry.logprob) ?? []));
    }
  })();
  return { ...state, done };
}

const posts = (server: SimServer): string[] => server.control.log.filter((entry) => entry.method === 'POST').map((entry) => entry.path);

describe('polar engine resume: weights before the engine samples again', () => {
  it('after pause --mode keep: no /wake_up; every token sampled after the pause carries the new weights', async () => {
    const server = await start({});
    const home = freshHome();
    const call = streamChat(server.url);
    await until(() => call.ids.length >= 5, 'tokens to stream');
    expect((await polar(home, 'pause', '--upstream', server.url, '--mode', 'keep')).exitCode).toBe(0);
    // vLLM says it "sleeps" while merely paused.
    expect(await (await fetch(`${server.url.replace(/\/v1$/, '')}/is_sleeping`)).json()).toEqual({ is_sleeping: true });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const frozen = call.ids.length;
    const resumed = await polar(home, 'resume', '--upstream', server.url, '--weights', 'reload', '--policy-version', '1');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    await call.done;
    expect(posts(server)).toEqual(['/pause', '/collective_rpc', '/reset_prefix_cache', '/resume']);
    expect(call.ids.length).toBeGreaterThan(frozen);
    expect(frozen).toBeGreaterThanOrEqual(5);
    expect(simWeightVersions(call.ids, call.logprobs)).toEqual(call.ids.map((_, i) => (i < frozen ? 0 : 1)));
  }, 60_000);

  it('after polar engine sleep: wakes first (polar recorded the sleep), then loads and resumes', async () => {
    const server = await start({ sleepMode: true });
    const home = freshHome();
    expect((await polar(home, 'sleep', '--upstream', server.url, '--level', '1')).exitCode).toBe(0);
    // Asleep and paused both read (true, true) on current vLLM: the record decides.
    const root = server.url.replace(/\/v1$/, '');
    expect([await (await fetch(`${root}/is_paused`)).json(), await (await fetch(`${root}/is_sleeping`)).json()]).toEqual([{ is_paused: true }, { is_sleeping: true }]);
    const resumed = await polar(home, 'resume', '--upstream', server.url, '--weights', 'reload', '--policy-version', '1');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(posts(server)).toEqual(['/sleep', '/wake_up', '/collective_rpc', '/reset_prefix_cache', '/resume']);
    expect(server.engine.isSleeping()).toBe(false);
  }, 60_000);

  it('paused by someone else on a server that can sleep: refuses (exit 3) naming --wake / --no-wake, sends nothing; --no-wake resumes', async () => {
    const server = await start({ sleepMode: true });
    const home = freshHome();
    const root = server.url.replace(/\/v1$/, '');
    await fetch(`${root}/pause?mode=keep`, { method: 'POST' });
    const refused = await polar(home, 'resume', '--upstream', server.url, '--weights', 'reload', '--policy-version', '1');
    expect(refused.exitCode).toBe(3);
    expect(refused.stderr).toMatch(/maybe asleep/);
    expect(refused.stderr).toMatch(/--no-wake if it was only paused/);
    expect(posts(server)).toEqual(['/pause']);
    const resumed = await polar(home, 'resume', '--upstream', server.url, '--no-wake', '--weights', 'reload', '--policy-version', '1');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(posts(server)).toEqual(['/pause', '/collective_rpc', '/reset_prefix_cache', '/resume']);
  }, 60_000);
});
