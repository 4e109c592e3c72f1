// Engine control against the simulator imitating each start-up of vLLM and SGLang: the probe learns, without
// side effects, which control features the server offers and says how to enable each missing one (the
// preflight's engine-control check, `polar doctor --control` fatal with exit 3); the fleet pauses every replica
// before it updates any, and updates every one before it resumes any.
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../../src/errors.js';
import type { SimServerOptions } from '../../../src/sim/sim-server.js';
import { EngineFleet } from '../../../src/upstream/control/engine-fleet.js';
import { serverRoot } from '../../../src/upstream/engines/detect-engine.js';
import { type ControlFeature, ControlUnsupportedError, EngineControlError } from '../../../src/upstream/engines/engine-control.js';
import { policyVersionOfSglang, probeSglangControl, sglangWeightVersion } from '../../../src/upstream/engines/sglang-control.js';
import { probeVllmControl } from '../../../src/upstream/engines/vllm-control.js';
import { inspectUpstream } from '../../../src/upstream/preflight/inspect-upstream.js';
import { firstFatalCheck } from '../../../src/upstream/preflight/run-preflight.js';
import { DEFAULT_ROLLOUT_SAMPLING } from '../../../src/config/sampling-policy.js';
import { testSims } from '../../helpers/start-test-sims.js';

const sim = testSims();

const signal = () => AbortSignal.timeout(10_000);

type Case = { name: string; options: Partial<SimServerOptions>; missing: ControlFeature; fix: RegExp };

/** Each control endpoint missing in turn, and the fix the probe must name. */
const MISSING: Case[] = [
  { name: 'vLLM without dev mode: no pause', options: {}, missing: 'pause-keep', fix: /VLLM_SERVER_DEV_MODE=1/ },
  { name: 'vLLM without dev mode: no abort pause', options: {}, missing: 'pause-abort', fix: /VLLM_SERVER_DEV_MODE=1/ },
  { name: 'vLLM before pause keep', options: { control: { devMode: true, pauseKeep: false } }, missing: 'pause-keep', fix: /PR #32351/ },
  { name: 'vLLM without sleep mode', options: { control: { devMode: true } }, missing: 'sleep', fix: /--enable-sleep-mode/ },
  { name: 'vLLM without dev mode: no reload', options: {}, missing: 'weights-reload', fix: /VLLM_SERVER_DEV_MODE=1/ },
  { name: 'vLLM without runtime LoRA updating', options: { control: { devMode: true, lora: true } }, missing: 'weights-lora', fix: /VLLM_ALLOW_RUNTIME_LORA_UPDATING=True/ },
  { name: 'vLLM with the LoRA route but without --enable-lora', options: { control: { devMode: true, runtimeLora: true } }, missing: 'weights-lora', fix: /--enable-lora/ },
  { name: 'SGLang without the memory saver', options: { engine: 'sglang' }, missing: 'sleep', fix: /--enable-memory-saver/ },
  { name: 'SGLang before pause modes', options: { engine: 'sglang', control: { pauseKeep: false } }, missing: 'pause-keep', fix: /in_place/ },
];

describe('control probe and preflight, each endpoint missing in turn', () => {
  it.each(MISSING)('$name: $missing is missing, the fix is named, doctor --control fails with exit 3', async ({ options, missing, fix }) => {
    const server = await sim(options);
    const probe = options.engine === 'sglang' ? probeSglangControl : probeVllmControl;
    const capabilities = await probe(serverRoot(server.url), signal());
    expect(capabilities.features[missing].available).toBe('no');
    expect(capabilities.features[missing].fix).toMatch(fix);
    // The probe changed nothing on the server.
    expect(server.control.log.every((entry) => entry.method === 'GET' || entry.status === 404 || entry.status === 400)).toBe(true);

    const profile = await inspectUpstream({ upstreamUrl: server.url, sampling: DEFAULT_ROLLOUT_SAMPLING, control: [missing] });
    const fatal = firstFatalCheck(profile.checks);
    expect(fatal).toMatchObject({ name: `control-${missing}`, exitCode: EXIT_CODES.config });
    expect(fatal?.hint).toMatch(fix);
    expect(profile.control?.features[missing].available).toBe('no');
  });

  it('a server with everything passes the check and every feature is offered', async () => {
    const vllm = await sim({ control: { devMode: true, sleepMode: true, lora: true, runtimeLora: true } });
    const profile = await inspectUpstream({ upstreamUrl: vllm.url, sampling: DEFAULT_ROLLOUT_SAMPLING, control: ['pause-keep', 'pause-abort', 'sleep', 'weights-reload', 'weights-lora'] });
    expect(firstFatalCheck(profile.checks)).toBeUndefined();
    expect(profile.checks.find((check) => check.name === 'engine-control')).toMatchObject({ ok: true, detail: 'offers pause-keep, pause-abort, sleep, weights-reload, weights-lora, weights-pushed; missing: weights-disk' });
    const sglang = await sim({ engine: 'sglang', control: { memorySaver: true } });
    const capabilities = await probeSglangControl(serverRoot(sglang.url), signal());
    expect(Object.entries(capabilities.features).filter(([, support]) => support.available !== 'yes').map(([name]) => name)).toEqual(['weights-lora']);
  });

  it('SGLang weight versions are polar\'s policy versions as decimal strings, and back; other labels are none of polar\'s', () => {
    expect(sglangWeightVersion(12)).toBe('12');
    expect(policyVersionOfSglang('12')).toBe(12);
    expect(policyVersionOfSglang('default')).toBeNull();
    expect(policyVersionOfSglang('012')).toBeNull();
  });
});

describe('EngineFleet', () => {
  it('two replicas: both paused before either is updated, both updated before either resumes', async () => {
    const [a, b] = await Promise.all([sim({ control: { devMode: true } }), sim({ control: { devMode: true } })]);
    const fleet = new EngineFleet([
      { url: a!.url, engine: 'vllm' },
      { url: b!.url, engine: 'vllm' },
    ]);
    await fleet.probe();
    await fleet.pause('keep');
    await fleet.updateWeights({ kind: 'reload' }, 4);
    await fleet.resume();
    const posts = [...a!.control.log, ...b!.control.log].filter((entry) => entry.method === 'POST').sort((x, y) => x.at - y.at);
    const lastPause = Math.max(...posts.filter((entry) => entry.path === '/pause').map((entry) => entry.at));
    const firstUpdate = Math.min(...posts.filter((entry) => entry.path === '/collective_rpc').map((entry) => entry.at));
    const lastUpdate = Math.max(...posts.filter((entry) => entry.path === '/reset_prefix_cache').map((entry) => entry.at));
    const firstResume = Math.min(...posts.filter((entry) => entry.path === '/resume').map((entry) => entry.at));
    expect(lastPause).toBeLessThanOrEqual(firstUpdate);
    expect(lastUpdate).toBeLessThanOrEqual(firstResume);
    for (const server of [a!, b!]) expect(server.control.log.filter((entry) => entry.method === 'POST').map((entry) => `${entry.path}${entry.query['mode'] ? `?mode=${entry.query['mode']}` : ''}`)).toEqual(['/pause?mode=keep', '/collective_rpc', '/reset_prefix_cache', '/resume']);
    expect(fleet.replicas.map((replica) => [replica.paused, replica.weightsVersion, replica.weightsKind])).toEqual([
      [null, 4, 'reload'],
      [null, 4, 'reload'],
    ]);
  });

  it('a failed update on one replica throws a typed error after all answered; the others stay as they are', async () => {
    const good = await sim({ engine: 'sglang' });
    const refusing = await sim({ engine: 'sglang' });
    const fleet = new EngineFleet([
      { url: good.url, engine: 'sglang' },
      { url: refusing.url, engine: 'sglang' },
    ]);
    await fleet.probe();
    await fleet.pause('keep');
    // The second replica's memory is released: SGLang refuses to load weights into it.
    refusing.control.memoryReleased = true;
    const failure = await fleet.updateWeights({ kind: 'disk', modelPath: '/ckpt/5' }, 5).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EngineControlError);
    expect((failure as EngineControlError).replica).toBe(serverRoot(refusing.url).href);
    expect(fleet.replicas.map((replica) => [replica.paused, replica.weightsVersion])).toEqual([
      ['keep', 5],
      ['keep', null],
    ]);
    expect(good.control.weightLabel).toBe('5');
    expect(refusing.control.log.map((entry) => entry.path).filter((path) => path !== '/openapi.json' && path !== '/get_server_info')).toEqual(['/pause_generation', '/update_weights_from_disk']);
  });

  it('require names every replica that lacks a feature and how to enable it', async () => {
    const plain = await sim({});
    const dev = await sim({ control: { devMode: true } });
    const fleet = new EngineFleet([
      { url: dev.url, engine: 'vllm' },
      { url: plain.url, engine: 'vllm' },
    ]);
    await fleet.probe();
    const error = (() => {
      try {
        fleet.require('pause-keep', 'pause mode "keep"');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ControlUnsupportedError);
    expect((error as ControlUnsupportedError).replicas).toEqual([plain.url]);
    expect((error as ControlUnsupportedError).hint).toMatch(/VLLM_SERVER_DEV_MODE=1/);
    expect((error as ControlUnsupportedError).exitCode).toBe(EXIT_CODES.config);
  });
});
