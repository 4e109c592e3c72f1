// The preflight against the real simulator: each misconfiguration fails with its exit code and a
// one-line message; a healthy server yields a complete profile in well under the time budget.
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING, type SamplingPolicy } from '../../../src/config/sampling-policy.js';
import { PolarError } from '../../../src/errors.js';
import { inspectUpstream, runPreflight } from '../../../src/upstream/preflight/run-preflight.js';
import { noopPolicy } from '../../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../../src/sim/sim-server.js';

const servers: SimServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function sim(options: Partial<SimServerOptions> = {}): Promise<string> {
  const server = await startSimServer({ policy: noopPolicy(), ...options });
  servers.push(server);
  return server.url;
}

const T07: SamplingPolicy = { ...DEFAULT_ROLLOUT_SAMPLING, temperature: 0.7 };

async function failure(promise: Promise<unknown>): Promise<PolarError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PolarError);
  const polar = error as PolarError;
  expect(polar.message).not.toContain('\n');
  expect(polar.hint).toBeTruthy();
  return polar;
}

describe('runPreflight against the simulator', () => {
  it('profiles a healthy server: model, window, version, raw logprobs, fields, eos ids, fingerprint', async () => {
    const url = await sim({ maxModelLen: 20000 });
    const profile = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile).toMatchObject({
      url,
      simulated: true,
      model: 'polar-sim-qwen3',
      models: ['polar-sim-qwen3'],
      maxModelLen: 20000,
      vllmVersion: '0.11.0-polar-sim',
      logprobMode: 'raw',
      logprobsMatchSampling: true,
      logprobMismatchAllowed: false,
      reasoningField: 'reasoning',
      toolCalling: true,
      streamTokenIds: true,
      eosTokenIds: [151645, 151643],
      eosSource: 'tokenize',
    });
    expect(profile.templateFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(profile.checks.every((check) => check.ok)).toBe(true);
    // The fingerprint depends on the template only: the same on a second server. Once the simulator's
    // tokenizer is loaded (the first run above), the whole preflight takes well under the budget.
    const started = performance.now();
    const again = await runPreflight({ upstreamUrl: await sim(), sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(performance.now() - started).toBeLessThan(3000);
    expect(again.templateFingerprint).toBe(profile.templateFingerprint);
  });

  it('exit 5: nothing listening, one line, no stack', async () => {
    const error = await failure(runPreflight({ upstreamUrl: 'http://127.0.0.1:1/v1', sampling: DEFAULT_ROLLOUT_SAMPLING, timeoutMs: 3000 }));
    expect(error.exitCode).toBe(5);
    expect(error.message).toBe('preflight (reachable): upstream http://127.0.0.1:1/v1 is not reachable: cannot reach http://127.0.0.1:1 (ECONNREFUSED)');
  });

  it('exit 3: several models and none named lists them; an unknown name lists them; a listed name is used', async () => {
    const url = await sim({ servedModelNames: ['qwen-base', 'qwen-lora'] });
    const several = await failure(runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(several.exitCode).toBe(3);
    expect(several.message).toContain('serves 2 models (qwen-base, qwen-lora) and none was named');
    const unknown = await failure(runPreflight({ upstreamUrl: url, model: 'qwen-other', sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(unknown.exitCode).toBe(3);
    expect(unknown.message).toContain('model "qwen-other" is not served; ');
    expect(unknown.message).toContain('lists: qwen-base, qwen-lora');
    const named = await runPreflight({ upstreamUrl: url, model: 'qwen-lora', sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(named.model).toBe('qwen-lora');
  });

  it('exit 5: a server that ignores return_token_ids (vLLM < 0.10.2)', async () => {
    const error = await failure(runPreflight({ upstreamUrl: await sim({ returnTokenIds: false }), sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(5);
    expect(error.message).toContain('ignores return_token_ids');
    expect(error.hint).toContain('vLLM >= 0.10.2');
  });

  it('exit 3: tool calling off names the exact vLLM flags', async () => {
    const error = await failure(runPreflight({ upstreamUrl: await sim({ toolCalling: false }), sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain('auto tool choice is off');
    expect(error.hint).toContain('--enable-auto-tool-choice --tool-call-parser hermes');
  });

  it('logprob mode: raw with T 0.7 is refused (exit 3) naming --logprobs-mode processed_logprobs', async () => {
    const url = await sim({ logprobsMode: 'raw' });
    const error = await failure(runPreflight({ upstreamUrl: url, sampling: T07 }));
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain('raw logprobs');
    expect(error.message).toContain('temperature 0.7');
    expect(error.hint).toContain('--logprobs-mode processed_logprobs');
    expect(error.hint).toContain('--temperature 1 --top-p 1 --top-k -1 --min-p 0');
  });

  it('logprob mode: --allow-logprob-mismatch starts and is recorded', async () => {
    const profile = await runPreflight({ upstreamUrl: await sim(), sampling: T07, allowLogprobMismatch: true });
    expect(profile).toMatchObject({ logprobMode: 'raw', logprobsMatchSampling: false, logprobMismatchAllowed: true });
    expect(profile.checks.find((check) => check.name === 'logprob-mode')).toMatchObject({ ok: false, warning: true });
  });

  it('logprob mode: processed logprobs match any sampling', async () => {
    const profile = await runPreflight({ upstreamUrl: await sim({ logprobsMode: 'processed' }), sampling: T07 });
    expect(profile).toMatchObject({ logprobMode: 'processed', logprobsMatchSampling: true });
  });

  it('harness sampling on raw logprobs only warns (evaluation)', async () => {
    const profile = await runPreflight({ upstreamUrl: await sim(), sampling: { mode: 'harness' } });
    expect(profile.logprobsMatchSampling).toBe(false);
    expect(profile.checks.find((check) => check.name === 'logprob-mode')).toMatchObject({ ok: false, warning: true });
  });

  it('exit 5: vLLM 0.11 drops streamed ids of a thinking/tool turn; --non-streaming-upstream makes it a warning', async () => {
    const url = await sim({ vllmCompat: '0.11.0' });
    const error = await failure(runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(5);
    expect(error.message).toMatch(/streamed chunks dropped token ids \(\d+ ids for \d+ completion tokens\)/);
    expect(error.hint).toContain('non-streaming');
    const profile = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING, nonStreamingUpstream: true });
    expect(profile.streamTokenIds).toBe(false);
    expect(profile.reasoningField).toBe('reasoning_content');
  });

  it.each([
    ['0.10.2', 'reasoning_content'],
    ['0.12.0', 'reasoning'],
    ['0.17.0', 'reasoning'],
  ] as const)('detects the reasoning field of vLLM %s: %s', async (version, field) => {
    const profile = await inspectUpstream({ upstreamUrl: await sim({ vllmCompat: version }), sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile.reasoningField).toBe(field);
    expect(profile.vllmVersion).toBe(`${version}-polar-sim`);
  });

  it('exit 3: the server answers as another model', async () => {
    const error = await failure(runPreflight({ upstreamUrl: await sim({ answerModel: 'someone-else' }), sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain('answered as "someone-else"');
  });

  it('--eos-token-ids overrides the derived ids', async () => {
    const profile = await runPreflight({ upstreamUrl: await sim(), sampling: DEFAULT_ROLLOUT_SAMPLING, eosTokenIds: [7] });
    expect(profile).toMatchObject({ eosTokenIds: [7], eosSource: 'flag' });
  });

  it('preflight probes do not count towards injected failures', async () => {
    const url = await sim({ failAfter: 1 });
    await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING });
    await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING });
  });

  it('inspectUpstream never throws for a bad server: it returns the failed check', async () => {
    const profile = await inspectUpstream({ upstreamUrl: 'http://127.0.0.1:1/v1', sampling: DEFAULT_ROLLOUT_SAMPLING, timeoutMs: 3000 });
    expect(profile.checks).toEqual([expect.objectContaining({ name: 'reachable', ok: false, exitCode: 5 })]);
  });
});
