// `polar serve`'s engine control over HTTP, with two simulator replicas in vLLM dev mode and a Docker-free
// batch executor: pause keep reaches every replica, resume with new weights updates both only after both were
// paused and resumes them only after both were updated; the steps are events, a control log in the store and
// the /v1/status control block; a missing feature is a 409 with the fix, a failed update a 502 that leaves
// everything paused, and a restart on the same db comes up held while the engines are paused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { noopPolicy } from '../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../src/sim/sim-server.js';
import type { EngineEvent } from '../../src/rollout/rollout-engine.js';
import { startTestServe, type TestServe } from '../helpers/start-test-serve.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sim(options: Partial<SimServerOptions> = {}): Promise<SimServer> {
  const server = await startSimServer({ policy: noopPolicy(), control: { devMode: true }, ...options });
  cleanups.push(() => server.close());
  return server;
}

function start(upstreams: string[], dir = mkdtempSync(path.join(tmpdir(), 'polar-serve-control-'))): Promise<TestServe> {
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return startTestServe(dir, cleanups, { upstreams });
}

const posts = (server: SimServer) => server.control.log.filter((entry) => entry.method === 'POST');

describe('polar serve engine control', () => {
  it('two replicas: pause keep on both, then resume with reloaded weights updates both before resuming either', async () => {
    const [a, b] = await Promise.all([sim(), sim()]);
    const h = await start([a!.url, b!.url]);
    const paused = await h.call('POST', '/v1/generation/pause', { mode: 'keep' });
    expect(paused).toMatchObject({ status: 200, json: { paused: true, mode: 'keep', frozen: 0, sleeping: null, policy_version: 0 } });
    const during = (await h.call('GET', '/v1/status')).json;
    expect(during.generation.paused).toBe(true);
    expect(during.control).toMatchObject({ mode: 'keep', sleeping: null });
    expect(during.control.replicas.map((replica: { url: string; paused: string }) => [replica.url, replica.paused])).toEqual([
      [a!.url, 'keep'],
      [b!.url, 'keep'],
    ]);
    expect(during.control.replicas[0].features['pause-keep']).toMatchObject({ available: 'yes' });
    expect(during.control.replicas[0].features.sleep).toMatchObject({ available: 'no', fix: expect.stringContaining('--enable-sleep-mode') });

    const resumed = await h.call('POST', '/v1/generation/resume', { policy_version: 4, weights: { kind: 'reload' } });
    expect(resumed).toMatchObject({ status: 200, json: { paused: false, policy_version: 4, weights: 'reload' } });
    const steps = [...posts(a!), ...posts(b!)].sort((x, y) => x.at - y.at);
    const at = (route: string, pick: (values: number[]) => number) => pick(steps.filter((entry) => entry.path === route).map((entry) => entry.at));
    expect(at('/pause', (v) => Math.max(...v))).toBeLessThanOrEqual(at('/collective_rpc', (v) => Math.min(...v)));
    expect(at('/reset_prefix_cache', (v) => Math.max(...v))).toBeLessThanOrEqual(at('/resume', (v) => Math.min(...v)));
    for (const server of [a!, b!]) expect(posts(server).map((entry) => entry.path)).toEqual(['/pause', '/collective_rpc', '/reset_prefix_cache', '/resume']);

    const log = h.store.engineControl.list();
    expect(log.map((entry) => entry.action)).toEqual(['pause', 'pause', 'update-weights', 'update-weights', 'resume', 'resume']);
    expect(log.every((entry) => entry.ok)).toBe(true);
    expect(log.filter((entry) => entry.action === 'update-weights').map((entry) => [entry.weightsKind, entry.version])).toEqual([
      ['reload', 4],
      ['reload', 4],
    ]);
    const generation = h.events.filter((event): event is Extract<EngineEvent, { type: 'generation' }> => event.type === 'generation');
    expect(generation.map((event) => [event.step, event.paused, event.mode, event.weightsKind])).toEqual([
      ['pause', true, 'hold', null],
      ['pause', true, 'keep', null],
      ['update-weights', true, 'keep', 'reload'],
      ['resume', false, null, 'reload'],
    ]);
    const after = (await h.call('GET', '/v1/status')).json;
    expect(after.generation).toMatchObject({ paused: false, policy_version: 4 });
    expect(after.control.replicas.map((replica: { paused: unknown; weights_version: number }) => [replica.paused, replica.weights_version])).toEqual([
      [null, 4],
      [null, 4],
    ]);
  });

  it('answers 409 with the fix for a feature a replica lacks, 400 for a bad body, and sends nothing to the engines', async () => {
    const plain = await sim({ control: {} });
    const h = await start([plain.url]);
    const keep = await h.call('POST', '/v1/generation/pause', { mode: 'keep' });
    expect(keep).toMatchObject({ status: 409, json: { error: { type: 'conflict', hint: expect.stringContaining('VLLM_SERVER_DEV_MODE=1') } } });
    expect((await h.call('POST', '/v1/generation/pause', { mode: 'keep', sleep: 1 })).status).toBe(400);
    expect((await h.call('POST', '/v1/generation/pause', { mode: 'soft' })).status).toBe(400);
    expect((await h.call('POST', '/v1/generation/pause', { drain: 1 })).status).toBe(400);
    expect((await h.call('POST', '/v1/generation/resume', { weights: { kind: 'reload' } })).status).toBe(400);
    expect((await h.call('POST', '/v1/generation/resume', { policy_version: 1, weights: { kind: 'lora', lora_name: 'a' } })).status).toBe(400);
    expect(posts(plain)).toEqual([]);
  });

  it('a failed update answers 502 and leaves every replica paused; the retried resume completes', async () => {
    const good = await sim({ engine: 'sglang', control: {} });
    const bad = await sim({ engine: 'sglang', control: {} });
    const h = await start([good.url, bad.url]);
    await h.call('POST', '/v1/generation/pause', { mode: 'keep' });
    bad.control.memoryReleased = true;
    const failed = await h.call('POST', '/v1/generation/resume', { policy_version: 2, weights: { kind: 'disk', model_path: '/ckpt/2' } });
    expect(failed).toMatchObject({ status: 502, json: { error: { type: 'engine_error' } } });
    const status = (await h.call('GET', '/v1/status')).json;
    expect(status.generation).toMatchObject({ paused: true, policy_version: 0 });
    expect(status.control.mode).toBe('keep');
    expect(posts(good).map((entry) => entry.path)).toEqual(['/pause_generation', '/update_weights_from_disk']);
    bad.control.memoryReleased = false;
    expect((await h.call('POST', '/v1/generation/resume', { policy_version: 2, weights: { kind: 'disk', model_path: '/ckpt/2' } })).status).toBe(200);
    expect([good.control.weightLabel, bad.control.weightLabel]).toEqual(['2', '2']);
    expect(posts(bad).map((entry) => entry.path)).toEqual(['/pause_generation', '/update_weights_from_disk', '/update_weights_from_disk', '/continue_generation']);
  });

  it('a restart on the same db comes up held while the engines are paused; the resume resumes them', async () => {
    const server = await sim();
    const first = await start([server.url]);
    await first.call('POST', '/v1/generation/pause', { mode: 'keep' });
    await first.close();
    const second = await start([server.url], first.dir);
    const status = (await second.call('GET', '/v1/status')).json;
    expect(status.generation.paused).toBe(true);
    expect(status.control.mode).toBe('keep');
    expect((await second.call('POST', '/v1/generation/resume', { policy_version: 1 })).status).toBe(200);
    expect(posts(server).map((entry) => entry.path)).toEqual(['/pause', '/resume']);
    expect(server.engine.isPaused()).toBe(false);
  });
});
