// `polar doctor` and the preflight of `polar proxy` as real processes: the table, --json, exit codes.
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../helpers/run-in-process.js';

const POLAR = path.resolve(import.meta.dirname, '../../bin/polar.js');
const CHECKS = ['reachable', 'version', 'model', 'max-model-len', 'tool-calling', 'token-ids', 'reasoning-field', 'logprob-mode', 'stream-token-ids', 'token-in', 'eos-token-ids', 'template', 'metrics', 'engine-control'];

describe('polar doctor', () => {
  it('prints every check as a table and exits 0 for a healthy server', async () => {
    const result = await execa(POLAR, ['doctor', '--upstream', 'sim:noop?max-model-len=4096'], { reject: false });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^upstream http:\/\/127\.0\.0\.1:\d+\/v1  sampling: run: temperature 1, top_p 1, top_k off, min_p 0$/);
    expect(lines[1]).toMatch(/^check\s+result\s+detail$/);
    for (const name of CHECKS) expect(result.stdout).toMatch(new RegExp(`^${name}\\s+ok\\s+\\S`, 'm'));
    expect(result.stdout).toMatch(/^max-model-len\s+ok\s+4096 tokens$/m);
    expect(result.stderr).toBe('');
  }, 60_000);

  it('--json prints the profile with every check', async () => {
    const result = await execa(POLAR, ['doctor', '--upstream', 'sim:noop?logprobs-mode=processed', '--temperature', '0.6', '--json'], { reject: false });
    expect(result.exitCode).toBe(0);
    const profile = JSON.parse(result.stdout) as { logprobMode: string; logprobsMatchSampling: boolean; sampling: { temperature: number }; checks: { name: string; ok: boolean }[] };
    expect(profile).toMatchObject({ logprobMode: 'processed', logprobsMatchSampling: true, sampling: { temperature: 0.6 } });
    expect(profile.checks.map((check) => check.name)).toEqual(CHECKS);
  }, 60_000);

  it("prints every check's hint, a passing one's too (in process)", async () => {
    const json = await runInProcess(['doctor', '--upstream', 'sim:noop', '--json']);
    const checks = (JSON.parse(json.stdout) as { checks: { name: string; ok: boolean; hint?: string }[] }).checks;
    const hinted = checks.filter((check) => check.hint !== undefined);
    // Without a GPU profile the simulator has no ceiling: the metrics check passes with how to get one.
    expect(hinted.find((check) => check.name === 'metrics')).toMatchObject({ ok: true, hint: expect.stringContaining('polar engine calibrate') });
    const text = await runInProcess(['doctor', '--upstream', 'sim:noop']);
    expect(text.exitCode).toBe(0);
    const hintLines = text.stdout.split('\n').filter((line) => line.startsWith('  '));
    expect(hintLines).toEqual(hinted.map((check) => `  ${check.name}: ${check.hint}`));
    // With a GPU profile there is a ceiling: no metrics hint.
    const profiled = await runInProcess(['doctor', '--upstream', 'sim:noop?gpu=qwen3-8b-h100']);
    expect(profiled.exitCode).toBe(0);
    expect(profiled.stdout).toMatch(/^metrics\s+ok\s+.*GPU profile ceiling \d+ tokens\/s$/m);
    expect(profiled.stdout).not.toContain('  metrics:');
  }, 60_000);

  it.each([
    [['--upstream', 'sim:noop?served-model-name=a,b'], 3, 'polar: preflight (model): http://127.0.0.1:PORT/v1 serves 2 models (a, b) and none was named'],
    [['--upstream', 'sim:noop', '--temperature', '0.6'], 3, "polar: preflight (logprob-mode): the server returns raw logprobs (before temperature/top-k/top-p) but the run samples with temperature 0.6: exported logprobs would not be the sampling distribution's"],
    [['--upstream', 'sim:noop?tool-calling=false'], 3, 'polar: preflight (tool-calling): auto tool choice is off: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'],
    [['--upstream', 'sim:noop?token-ids=false'], 5, 'polar: preflight (token-ids): the upstream ignores return_token_ids (no prompt_token_ids / token_ids in a non-streaming answer)'],
    [['--upstream', 'sim:noop?vllm-compat=0.11.0'], 5, 'polar: preflight (stream-token-ids): streamed chunks dropped token ids'],
    [['--upstream', 'http://127.0.0.1:1/v1'], 5, 'polar: preflight (reachable): upstream http://127.0.0.1:PORT/v1 is not reachable: cannot reach http://127.0.0.1:1 (ECONNREFUSED)'],
    [['--upstream', 'sim:noop?engine=sglang&token-ids=false'], 5, 'polar: preflight (token-ids): SGLang 0.5.13-polar-sim answers chat without token ids'],
    [['--upstream', 'sim:noop?engine=sglang&tool-calling=false'], 3, 'polar: preflight (tool-calling): the server parses no tool calls (started without --tool-call-parser)'],
    [['--upstream', 'sim:noop?engine=sglang', '--top-p', '0.9'], 3, 'polar: preflight (logprob-mode): the server returns logprobs after temperature but before top-k/top-p/min-p'],
  ])('doctor %j exits %i with one line and a hint (in process)', async (args, code, line) => {
    const { exitCode, stdout, stderr } = await runInProcess(['doctor', ...args]);
    expect(exitCode).toBe(code);
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.replace(/:\d+\/v1/, ':PORT/v1')).toContain(line);
    expect(lines[1]).toMatch(/^hint: /);
    expect(stdout).toMatch(/FAIL/);
  }, 60_000);
});

describe('polar doctor against SGLang', () => {
  it('detects the engine and prints its checks; --token-in turns missing chat ids into a warning', async () => {
    const healthy = await runInProcess(['doctor', '--upstream', 'sim:noop?engine=sglang&router-workers=2', '--json']);
    expect(healthy.exitCode).toBe(0);
    const profile = JSON.parse(healthy.stdout) as { engine: string; engineVersion: string; checks: { name: string }[] };
    expect(profile).toMatchObject({ engine: 'sglang', engineVersion: '0.5.19-polar-sim' });
    expect(profile.checks.map((check) => check.name)).toEqual(['reachable', 'version', 'model', 'max-model-len', 'tool-calling', 'reasoning-parser', 'token-ids', 'reasoning-field', 'logprob-mode', 'stream-token-ids', 'token-in', 'eos-token-ids', 'router', 'template', 'metrics', 'engine-control']);
    // SGLang serves /metrics only with --enable-metrics: a warning that says so, never a failure.
    expect(healthy.stdout).toContain('--enable-metrics');
    const old = await runInProcess(['doctor', '--upstream', 'sim:noop?engine=sglang&token-ids=false', '--token-in']);
    expect(old.exitCode).toBe(0);
    expect(old.stdout).toMatch(/^token-ids\s+warn\s+SGLang 0\.5\.13-polar-sim answers chat without token ids/m);
    expect(old.stdout).toMatch(/^version\s+ok\s+SGLang 0\.5\.13-polar-sim/m);
    // Whether token-in calls can stream through /generate, how its chunks come, and what a stream interval means.
    expect(old.stdout).toMatch(/^stream-token-ids\s+ok\s+streamed \/generate carries every sampled id and logprob \(cumulative chunks, --stream-interval 1, per-token weight_versions spans not reported\)/m);
    const held = await runInProcess(['doctor', '--upstream', 'sim:noop?engine=sglang&chunk-tokens=4&stream-output=legacy', '--token-in']);
    expect(held.exitCode).toBe(0);
    expect(held.stdout).toMatch(/^stream-token-ids\s+warn\s+streamed \/generate carries every sampled id \(legacy chunks, --stream-interval 4, .*holds up to 3 sampled tokens back/m);
  }, 60_000);

  it('--engine forces the family; an unknown one is a usage error', async () => {
    const forced = await runInProcess(['doctor', '--upstream', 'sim:noop', '--engine', 'sglang']);
    expect(forced.exitCode).not.toBe(0);
    expect(forced.stdout).toMatch(/^version\s+ok\s+no \/get_server_info/m);
    expect(forced.stdout).toMatch(/^engine\s+warn\s+--engine sglang, but the server answers \/version like vLLM$/m);
    const bad = await runInProcess(['doctor', '--upstream', 'sim:noop', '--engine', 'tgi']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--engine must be one of vllm, sglang, not "tgi"');
  }, 60_000);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('polar proxy preflight', () => {
  it('refuses to start against an ambiguous upstream (exit 3) and an unreachable one (exit 5)', async () => {
    const ambiguous = await runInProcess(['proxy', '--upstream', 'sim:noop?served-model-name=a,b', '--port', '0', '--db', ':memory:']);
    expect(ambiguous.exitCode).toBe(3);
    expect(ambiguous.stdout).not.toContain('listening');
    const down = await runInProcess(['proxy', '--upstream', 'http://127.0.0.1:1/v1', '--port', '0', '--db', ':memory:']);
    expect(down.exitCode).toBe(5);
    expect(down.stderr.split('\n')[0]).toBe('polar: preflight (reachable): upstream http://127.0.0.1:1/v1 is not reachable: cannot reach http://127.0.0.1:1 (ECONNREFUSED)');
  }, 60_000);

  it('rejects bad sampling flags with a usage error', async () => {
    const result = await runInProcess(['proxy', '--upstream', 'sim:noop', '--top-p', '2', '--db', ':memory:']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--top-p must be in (0, 1] (got 2)');
  }, 60_000);
});
