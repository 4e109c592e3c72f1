// `polar engine` and `polar doctor --control` as real processes against simulators started as vLLM and SGLang
// are: a missing control feature exits 3 with the fix on stderr, an unreachable engine exits 5, and an
// update-weights over two replicas reaches both (pause, update, resume) with --json steps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { testSims } from '../helpers/start-test-sims.js';

const POLAR = path.resolve(import.meta.dirname, '../../bin/polar.js');
const sim = testSims();

// What `polar engine` records of the engines it drove goes to a throw-away $POLAR_HOME.
const home = mkdtempSync(path.join(tmpdir(), 'polar-home-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const polar = (...args: string[]) => execa(POLAR, args, { reject: false, env: { POLAR_HOME: home } });

describe('polar engine / doctor --control', () => {
  it('exits 3 with the fix when the engine lacks the feature, for vLLM and SGLang', async () => {
    const vllm = await sim({});
    const pause = await polar('engine', 'pause', '--upstream', vllm.url, '--mode', 'keep');
    expect(pause.exitCode).toBe(3);
    expect(pause.stderr).toMatch(/needs pause-keep/);
    expect(pause.stderr).toMatch(/hint: To enable it, start vLLM with VLLM_SERVER_DEV_MODE=1/);
    expect(vllm.control.log.filter((entry) => entry.method === 'POST')).toEqual([]);

    const dev = await sim({ control: { devMode: true } });
    const sleep = await polar('doctor', '--upstream', dev.url, '--control', 'pause-keep,sleep');
    expect(sleep.exitCode).toBe(3);
    expect(sleep.stdout).toMatch(/^control-sleep\s+FAIL\s+the run needs sleep/m);
    expect(sleep.stdout).toMatch(/control-sleep: To enable it, restart vLLM with --enable-sleep-mode/);
    expect(sleep.stderr).toMatch(/preflight \(control-sleep\)/);

    const sglang = await sim({ engine: 'sglang' });
    const release = await polar('engine', 'sleep', '--upstream', sglang.url);
    expect(release.exitCode).toBe(3);
    expect(release.stderr).toMatch(/--enable-memory-saver/);
    expect(sglang.control.log.filter((entry) => entry.path === '/release_memory_occupation')).toEqual([]);
  }, 120_000);

  it('exits 5 when the engine cannot be reached, and 2 for a bad flag', async () => {
    const down = await sim({ control: { devMode: true } });
    const url = down.url;
    await down.close();
    const refused = await polar('engine', 'pause', '--upstream', url, '--engine', 'vllm', '--mode', 'abort');
    expect(refused.exitCode).toBe(5);
    expect(refused.stderr).toMatch(/does not answer/);
    expect((await polar('engine', 'pause', '--upstream', url, '--mode', 'soft')).exitCode).toBe(2);
  }, 60_000);

  it('update-weights pauses, updates and resumes every replica; --json lists the steps', async () => {
    const [a, b] = await Promise.all([sim({ control: { devMode: true } }), sim({ control: { devMode: true } })]);
    const result = await polar('engine', 'update-weights', '--upstream', a!.url, '--upstream', b!.url, '--weights', 'reload', '--policy-version', '7', '--json');
    expect(result.exitCode, result.stderr).toBe(0);
    const { steps } = JSON.parse(result.stdout) as { steps: { action: string; replica: string; ok: boolean }[] };
    expect(steps.map((step) => step.action)).toEqual(['pause', 'pause', 'update-weights', 'update-weights', 'resume', 'resume']);
    expect(new Set(steps.map((step) => step.replica))).toEqual(new Set([a!.url, b!.url]));
    for (const server of [a!, b!]) expect(server.engine.metrics().weightVersion).toBe(1);
  }, 60_000);
});
