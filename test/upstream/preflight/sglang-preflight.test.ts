// The preflight against the SGLang-shaped simulator: detection, a healthy profile, and each missing piece
// with its exit code and advice (chat ids by version, token-in in their place, parsers, logprobs, router).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ROLLOUT_SAMPLING, type SamplingPolicy } from '../../../src/config/sampling-policy.js';
import { PolarError } from '../../../src/errors.js';
import { noopPolicy } from '../../../src/sim/policies/noop.js';
import { startSimServer, type SimServer, type SimServerOptions } from '../../../src/sim/sim-server.js';
import { detectEngine } from '../../../src/upstream/engines/detect-engine.js';
import { inspectUpstream, runPreflight } from '../../../src/upstream/preflight/run-preflight.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function sglang(options: Partial<SimServerOptions> = {}): Promise<string> {
  const server: SimServer = await startSimServer({ policy: noopPolicy(), engine: 'sglang', ...options });
  servers.push(server);
  return server.url;
}

async function failure(promise: Promise<unknown>): Promise<PolarError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PolarError);
  expect((error as PolarError).message).not.toContain('\n');
  expect((error as PolarError).hint).toBeTruthy();
  return error as PolarError;
}

const CHECKS = ['reachable', 'version', 'model', 'max-model-len', 'tool-calling', 'reasoning-parser', 'token-ids', 'reasoning-field', 'logprob-mode', 'stream-token-ids', 'token-in', 'eos-token-ids', 'template', 'metrics', 'engine-control'];

describe('engine detection', () => {
  it('tells SGLang (/get_model_info) from vLLM (/version); an unreachable server is assumed vLLM', async () => {
    expect(await detectEngine(await sglang())).toEqual({ engine: 'sglang', evidence: '/get_model_info' });
    const vllm = await startSimServer({ policy: noopPolicy() });
    servers.push(vllm);
    expect(await detectEngine(vllm.url)).toEqual({ engine: 'vllm', evidence: '/version' });
    expect(await detectEngine('http://127.0.0.1:1/v1')).toEqual({ engine: 'vllm', evidence: 'default' });
  });

  it('a server with neither route is taken as vLLM; --engine overrides detection', async () => {
    const bare = createServer((_req, res) => void res.writeHead(404).end());
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise((resolve) => bare.close(() => resolve())) });
    expect((await detectEngine(`http://127.0.0.1:${(bare.address() as AddressInfo).port}/v1`)).engine).toBe('vllm');
    // Forced to vLLM, an SGLang server fails vLLM's own check: it has no chat ids on a stream.
    const forced = await inspectUpstream({ upstreamUrl: await sglang(), engine: 'vllm', sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(forced.engine).toBe('vllm');
    expect(forced.checks.find((check) => !check.ok)).toBeDefined();
  });
});

describe('runPreflight against SGLang', () => {
  it('profiles a healthy server: version, parsers, ids, temperature-scaled logprobs, eos ids, fingerprint', async () => {
    const profile = await runPreflight({ upstreamUrl: await sglang({ maxModelLen: 20000, sglang: { enableMetrics: true } }), sampling: { ...DEFAULT_ROLLOUT_SAMPLING, temperature: 0.6 } });
    expect(profile).toMatchObject({
      engine: 'sglang',
      engineVersion: '0.5.19-polar-sim',
      vllmVersion: null,
      simulated: true,
      maxModelLen: 20000,
      toolCalling: true,
      toolCallParser: 'qwen25',
      toolFormat: 'hermes',
      reasoningParser: 'qwen3',
      reasoningField: 'reasoning_content',
      logprobMode: 'scaled',
      logprobsMatchSampling: true,
      streamTokenIds: true,
      streamInterval: 1,
      generateStream: { shape: 'cumulative', weightVersionSpans: false },
      chatTokenIds: true,
      eosTokenIds: [151645, 151643],
    });
    expect(profile.checks.find((check) => check.name === 'stream-token-ids')?.detail).toMatch(/^streamed \/generate carries every sampled id and logprob \(cumulative chunks, --stream-interval 1, per-token weight_versions spans not reported\)/);
    expect(profile.templateFingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(profile.checks.map((check) => check.name)).toEqual(CHECKS);
    expect(profile.checks.every((check) => check.ok)).toBe(true);
    // The same probe conversation renders the same on a vLLM-shaped server (same template and tokenizer).
    const vllm = await startSimServer({ policy: noopPolicy() });
    servers.push(vllm);
    expect((await runPreflight({ upstreamUrl: vllm.url, sampling: DEFAULT_ROLLOUT_SAMPLING })).templateFingerprint).toBe(profile.templateFingerprint);
  });

  it('stream-token-ids: a streamed /generate read as the gateway reads it, in each shape; a stream interval without spans warns', async () => {
    const check = async (options: Partial<SimServerOptions>) => {
      const profile = await runPreflight({ upstreamUrl: await sglang(options), sampling: DEFAULT_ROLLOUT_SAMPLING, tokenIn: true });
      return { profile, check: profile.checks.find((one) => one.name === 'stream-token-ids')! };
    };
    const legacy = await check({ sglang: { streamOutput: 'legacy', streamBacklog: 2 } });
    expect(legacy.profile.generateStream).toEqual({ shape: 'legacy', weightVersionSpans: false });
    expect(legacy.check).toMatchObject({ ok: true });
    const interval = await check({ chunkTokens: 4, sglang: { streamOutput: 'incremental' } });
    expect(interval.profile).toMatchObject({ streamTokenIds: true, streamInterval: 4, generateStream: { shape: 'incremental', weightVersionSpans: false } });
    expect(interval.check).toMatchObject({ ok: false, warning: true, detail: expect.stringContaining('holds up to 3 sampled tokens back'), hint: expect.stringContaining('--stream-interval 1') });
    const spans = await check({ chunkTokens: 4, sglang: { weightVersionSpans: true } });
    expect(spans.check).toMatchObject({ ok: true, detail: expect.stringContaining('per-token weight_versions spans reported') });
    const cut = await check({ sglang: { dropStreamAfter: 3 } });
    expect(cut.profile).toMatchObject({ streamTokenIds: false, generateStream: null });
    expect(cut.check).toMatchObject({ ok: false, warning: true, detail: expect.stringMatching(/^streamed \/generate does not give every sampled id: .*closed the stream early/) });
  });

  it('exit 5: a release without chat token ids names PR #30917 and offers --token-in, which then only warns', async () => {
    const url = await sglang({ returnTokenIds: false });
    const error = await failure(runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(5);
    expect(error.message).toBe('preflight (token-ids): SGLang 0.5.13-polar-sim answers chat without token ids (return_token_ids is ignored); chat ids came with PR #30917, merged 2026-07-12: SGLang releases after that date (non-streaming chat only)');
    expect(error.hint).toContain('Upgrade SGLang to a release after 2026-07-12 (PR #30917), or run with --token-in');
    const profile = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING, tokenIn: true });
    expect(profile).toMatchObject({ chatTokenIds: false });
    expect(profile.checks.find((check) => check.name === 'token-ids')).toMatchObject({ ok: false, warning: true });
    expect(profile.checks.find((check) => check.name === 'token-in')).toMatchObject({ ok: true });
  });

  it('exit 5: without chat ids and without /tokenize of messages, --token-in cannot stand in (said so)', async () => {
    const url = await sglang({ returnTokenIds: false, sglang: { tokenizeMessages: false } });
    const error = await failure(runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING, tokenIn: true }));
    expect(error.exitCode).toBe(5);
    expect(error.hint).toContain('--token-in cannot stand in (/tokenize does not render chat messages');
  });

  it('a server with chat ids but a text-only /tokenize: token-in warns when asked for, passes quietly otherwise', async () => {
    const url = await sglang({ sglang: { tokenizeMessages: false } });
    const asked = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING, tokenIn: true });
    expect(asked.checks.find((check) => check.name === 'token-in')).toMatchObject({ ok: false, warning: true, exitCode: 5 });
    const plain = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(plain.checks.find((check) => check.name === 'token-in')).toMatchObject({ ok: true, detail: expect.stringMatching(/^not available/) });
    // The end-of-turn ids still come from the chat endpoint's rendering of the probe conversation.
    expect(plain.eosTokenIds).toEqual([151645, 151643]);
  });

  it('a server without /tokenize (404): token-in unavailable and said so, the profile records why; eos ids then need the flag when the probe stopped on none', async () => {
    const url = await sglang({ sglang: { tokenize: false } });
    const profile = await runPreflight({ upstreamUrl: url, sampling: DEFAULT_ROLLOUT_SAMPLING, eosTokenIds: [151645, 151643] });
    expect(profile.tokenInRoute).toEqual({ ok: false, why: 'the server has no /tokenize route (answered 404)' });
    expect(profile.checks.find((check) => check.name === 'token-in')).toMatchObject({ ok: true, detail: 'not available (the server has no /tokenize route (answered 404)); without --token-in nothing needs it' });
    expect(profile.eosTokenIds).toEqual([151645, 151643]);
    // A model whose probe answer is a tool call stops on no end-of-turn id: without /tokenize nothing derives them.
    const toolCaller = await startSimServer({ policy: () => ({ toolCalls: [{ name: 'get_time', arguments: { city: 'Paris' } }] }), engine: 'sglang', sglang: { tokenize: false } });
    servers.push(toolCaller);
    const error = await failure(runPreflight({ upstreamUrl: toolCaller.url, sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.message).toMatch(/^preflight \(eos-token-ids\)/);
    expect(error.hint).toContain('--eos-token-ids');
    expect((await runPreflight({ upstreamUrl: await sglang(), sampling: DEFAULT_ROLLOUT_SAMPLING })).tokenInRoute).toEqual({ ok: true, why: null });
  });

  it('exit 3: no --tool-call-parser names the SGLang flag; no --reasoning-parser only warns', async () => {
    const error = await failure(runPreflight({ upstreamUrl: await sglang({ toolCalling: false }), sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(3);
    expect(error.message).toContain('parses no tool calls');
    expect(error.hint).toContain('--tool-call-parser qwen25');
    const profile = await runPreflight({ upstreamUrl: await sglang({ sglang: { reasoningParser: false } }), sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile.checks.find((check) => check.name === 'reasoning-parser')).toMatchObject({ ok: false, warning: true, hint: expect.stringContaining('--reasoning-parser qwen3') });
  });

  it('logprobs: temperature-scaled ones refuse top_p < 1 (exit 3, SGLang advice); raw ones (SGLANG_RETURN_ORIGINAL_LOGPROB) refuse T != 1', async () => {
    const topP: SamplingPolicy = { ...DEFAULT_ROLLOUT_SAMPLING, topP: 0.9 };
    const scaled = await failure(runPreflight({ upstreamUrl: await sglang(), sampling: topP }));
    expect(scaled.exitCode).toBe(3);
    expect(scaled.message).toContain('after temperature but before top-k/top-p/min-p, and the run samples with top_p 0.9');
    expect(scaled.hint).toContain('SGLANG_RETURN_ORIGINAL_LOGPROB');
    const raw = await failure(runPreflight({ upstreamUrl: await sglang({ logprobsMode: 'raw' }), sampling: { ...DEFAULT_ROLLOUT_SAMPLING, temperature: 0.7 } }));
    expect(raw.message).toContain('raw logprobs');
  });

  it('the router: its workers are listed; none healthy is exit 5', async () => {
    const profile = await runPreflight({ upstreamUrl: await sglang({ sglang: { routerWorkers: 2 } }), sampling: DEFAULT_ROLLOUT_SAMPLING });
    expect(profile.routerWorkers).toEqual(['http://127.0.0.1:30000', 'http://127.0.0.1:30001']);
    expect(profile.checks.find((check) => check.name === 'router')).toMatchObject({ ok: true, detail: expect.stringContaining('2 worker(s), 2 healthy') });
    const error = await failure(runPreflight({ upstreamUrl: await sglang({ sglang: { routerWorkers: 2, unhealthyWorkers: 2 } }), sampling: DEFAULT_ROLLOUT_SAMPLING }));
    expect(error.exitCode).toBe(5);
    expect(error.message).toContain('none healthy');
  });
});
