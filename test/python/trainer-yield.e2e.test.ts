// One-sequence trainers get one sequence with every sampled token, end to end: a real `polar serve` (started without
// --token-in: its default capture is chat), the real Pi CLI in Docker (it sends the sampled reasoning back as
// reasoning_content), polar's drifting simulator in this process (scripted: ten shell tool turns with reasoning,
// then an answer; Qwen3's template with thinking on). python/tests/live_yield/test_live_yield.py drives TRL's
// rollout_func and verl's agent loop as their trainers do: their batches ask for token-in by default and every
// sampled token, reasoning included, reaches the trainer (polar/yield 1.0); TRL opted into chat trains one row of
// each split lineage and counts the rest. Each output passes its trainer's contract and polar_rollout.check. A second
// polar serve, in front of an SGLang-shaped simulator without /tokenize (no token-in route), refuses TRL's token-in
// batch at submit: CaptureUnavailable with the engine's fix and the opt-in.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { scriptedPolicy } from '../../src/sim/policies/scripted.js';
import { parseDriftSpec } from '../../src/sim/sim-drift.js';
import { startSimServer, type SimServer } from '../../src/sim/sim-server.js';
import { spawnServe } from '../helpers/spawn-serve.js';
import { TOKEN_IN_DRIFT, tokenInScript } from '../rollout/token-in-script.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { DEBIAN_PYTHON, PYTHON_DIR, pythonSkipReason, runUnittest } from './debian-python.js';

const TOKEN = 'trainer-yield-e2e-token';
const runtime: ContainerRuntime | undefined = await dockerForTests();
const skip = runtime === undefined ? 'no Docker' : pythonSkipReason();

describe.skipIf(skip !== undefined)('one-sequence trainers on a real polar serve: token-in by default, every sampled token (Docker, real Pi, thinking template)', () => {
  let dir: string;
  let sim: SimServer;
  let noTokenIn: SimServer;
  let child: ResultPromise | undefined;
  let refusing: ResultPromise | undefined;
  let url = '';
  let refusingUrl = '';

  beforeAll(async () => {
    const installed = isHarnessInstalled(loadHarness('pi'), resolveCacheDir());
    if (!installed.installed) throw new Error(`harness pi is not installed (${installed.reason}); .ci/run installs it (polar harness install pi)`);
    const base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image: instanceImageName(base), baseCommit: base.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-trainer-yield-e2e-'));
    writeFileSync(path.join(dir, 'task.json'), JSON.stringify({ ...base, image: instanceImageName(base) }));
    sim = await startSimServer({ policy: scriptedPolicy(tokenInScript()), toolFormat: 'hermes', drift: parseDriftSpec(TOKEN_IN_DRIFT) });
    ({ child, url } = await spawnServe(['--upstream', sim.url, '--db', path.join(dir, 'polar.db'), '--token', TOKEN, '--timeout', '300', '--concurrency', '2', '--tool-format', 'hermes'], path.join(dir, 'serve.log')));
    noTokenIn = await startSimServer({ policy: scriptedPolicy(tokenInScript()), engine: 'sglang', sglang: { tokenize: false } });
    ({ child: refusing, url: refusingUrl } = await spawnServe(['--upstream', noTokenIn.url, '--db', path.join(dir, 'refusing.db'), '--token', TOKEN], path.join(dir, 'refusing.log')));
  }, 300_000);

  afterAll(async () => {
    child?.kill('SIGTERM');
    refusing?.kill('SIGTERM');
    await child;
    await refusing;
    await sim?.close();
    await noTokenIn?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('TRL and verl ask for token-in and receive every sampled token; TRL opted into chat counts what it loses; no token-in route: refused at submit', async () => {
    const result = await runUnittest(DEBIAN_PYTHON, path.join(PYTHON_DIR, 'tests', 'live_yield'), {
      PYTHONPATH: [PYTHON_DIR, path.join(PYTHON_DIR, 'tests')].join(path.delimiter),
      PYTHONDONTWRITEBYTECODE: '1',
      POLAR_TEST_SERVE_URL: url,
      POLAR_TEST_SERVE_TOKEN: TOKEN,
      POLAR_TEST_TASK: path.join(dir, 'task.json'),
      POLAR_TEST_NO_TOKEN_IN_URL: refusingUrl,
    });
    expect(result.code, `${result.output}\n${readFileSync(path.join(dir, 'serve.log'), 'utf8').slice(-3000)}`).toBe(0);
    expect(result.ran, result.output).toBe(4);
    expect(result.skipped, result.output).toBe(0);
  }, 900_000);
});
