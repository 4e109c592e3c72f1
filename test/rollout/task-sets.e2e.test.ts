// Task sets end to end with real harness CLIs in real containers, on local images that mimic the official
// layout (a conda-style `testbed` env on PATH only after /root/.bashrc ran):
// - every harness's shell tool sees the task environment (the captured tool result shows the env's prefix);
// - a SWE-Gym-shaped and a SWE-smith-shaped task, named and imaged the way those sets do it, resolve with the
//   oracle on Pi, and do not resolve without the fix (`polar eval swebench --predictions`).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { resolveCacheDir } from '../../src/config/paths.js';
import { goldPatch } from '../../src/eval/swebench/families/gold-patch.js';
import { loadDataset } from '../../src/eval/swebench/load-dataset.js';
import { isHarnessInstalled } from '../../src/harness/is-harness-installed.js';
import { loadHarness } from '../../src/harness/load-harness-manifest.js';
import { runRollout } from '../../src/rollout/run-rollout.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { runFilter } from '../../src/runtime/labels.js';
import { openStore, type Store } from '../../src/store/open-store.js';
import { buildTaskSetImage, fileDiff } from '../helpers/build-task-set-image.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();

const ENV_IMAGE = 'polar-test/conda-testbed:1';
const GYM_ID = 'getmoto__moto-9001';
const GYM_IMAGE = 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-9001:latest';
const SMITH_ID = 'polar-example__tiny.0123abcd.func_pm_flip_sign__x1';
const SMITH_IMAGE = 'jyangballin/swesmith.x86_64.polar-example_1776_tiny.0123abcd';

const PYTHON_PREFIX = "python -c 'import sys; print(sys.prefix)'";
/** Each harness's own shell tool, as its scripted call. */
const SHELL_CALLS: Record<string, { name: string; arguments: Record<string, unknown> }> = {
  pi: { name: 'bash', arguments: { command: PYTHON_PREFIX } },
  codex: { name: 'exec_command', arguments: { cmd: PYTHON_PREFIX } },
  'claude-code': { name: 'Bash', arguments: { command: PYTHON_PREFIX } },
  'qwen-code': { name: 'run_shell_command', arguments: { command: PYTHON_PREFIX, is_background: false } },
};

const CORE_BUGGY = 'def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n';
const CORE_FIXED = 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n';
const TEST_BASE = 'import unittest\n\nfrom moto.core import mul\n\n\nclass TestCore(unittest.TestCase):\n    def test_mul(self):\n        self.assertEqual(mul(3, 4), 12)\n';
const TEST_NEW = 'import unittest\n\nfrom moto.core import add, mul\n\n\nclass TestCore(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n        self.assertEqual(mul(3, 4), 12)\n';
const CALC_TESTS = 'import unittest\n\nfrom calc import add, mul\n\n\nclass TestCalc(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_mul(self):\n        self.assertEqual(mul(3, 4), 12)\n';

describe.skipIf(runtime === undefined)('task sets with real harness CLIs (Docker)', () => {
  const docker = runtime as ContainerRuntime;
  let dir: string;
  let store: Store;
  let envDataset: string;
  let familyDataset: string;

  beforeAll(async () => {
    for (const name of Object.keys(SHELL_CALLS)) {
      const state = isHarnessInstalled(loadHarness(name), resolveCacheDir());
      if (!state.installed) throw new Error(`harness ${name} is not installed (${state.reason}); .ci/run installs all four`);
    }
    dir = mkdtempSync(path.join(tmpdir(), 'polar-task-sets-'));
    store = openStore(path.join(dir, 'polar.db'));
    const envBase = await buildTaskSetImage(docker, TEST_IMAGE, { image: ENV_IMAGE, layout: 'swebench-commit', files: { 'hello.py': 'print("hello")\n', 'setup.cfg': '[metadata]\nname = hello\n' } });
    const gymBase = await buildTaskSetImage(docker, TEST_IMAGE, {
      image: GYM_IMAGE,
      layout: 'swebench-commit',
      files: { 'moto/__init__.py': '', 'moto/core.py': CORE_BUGGY, 'tests/test_core.py': TEST_BASE, 'setup.cfg': '[metadata]\nname = moto\n' },
    });
    await buildTaskSetImage(docker, TEST_IMAGE, { image: SMITH_IMAGE, layout: 'plain', files: { 'calc.py': CORE_FIXED, 'tests/test_calc.py': CALC_TESTS } });
    envDataset = path.join(dir, 'env.jsonl');
    writeFileSync(envDataset, `${JSON.stringify({ instance_id: 'polar-test__conda-1', repo: 'polar-test/conda', base_commit: envBase, patch: '', test_patch: '', problem_statement: 'Print the Python prefix.', image: ENV_IMAGE })}\n`);
    const gym = {
      instance_id: GYM_ID,
      repo: 'getmoto/moto',
      version: '4.1',
      base_commit: gymBase,
      created_at: '2026-01-01T00:00:00Z',
      problem_statement: 'moto.core.add returns the difference of its arguments instead of their sum.',
      hints_text: '',
      patch: fileDiff('moto/core.py', CORE_BUGGY, CORE_FIXED),
      test_patch: fileDiff('tests/test_core.py', TEST_BASE, TEST_NEW),
      FAIL_TO_PASS: ['tests/test_core.py::TestCore::test_add'],
      PASS_TO_PASS: ['tests/test_core.py::TestCore::test_mul'],
    };
    const smith = {
      instance_id: SMITH_ID,
      repo: 'swesmith/polar-example__tiny.0123abcd',
      image_name: SMITH_IMAGE,
      problem_statement: 'calc.add(2, 3) gives -1; it should add its arguments.',
      patch: fileDiff('calc.py', CORE_FIXED, CORE_BUGGY),
      FAIL_TO_PASS: ['tests/test_calc.py::TestCalc::test_add'],
      PASS_TO_PASS: ['tests/test_calc.py::TestCalc::test_mul'],
    };
    familyDataset = path.join(dir, 'families.jsonl');
    writeFileSync(familyDataset, `${JSON.stringify(gym)}\n${JSON.stringify(smith)}\n`);
  });

  afterAll(() => {
    store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const context = () => ({ runtime: docker, store, cacheDir: resolveCacheDir(), signal: new AbortController().signal, emit: () => undefined });

  it.each(Object.keys(SHELL_CALLS))("%s's shell tool runs inside the task's conda-style testbed env", async (harness) => {
    const script = path.join(dir, `prefix-${harness}.json`);
    // One turn for every harness: Qwen Code's canned opening assistant turn ("Got it. Thanks for the
    // context!") is not a turn the model took, and the scripted policy no longer counts it.
    const turns = [{ toolCalls: [SHELL_CALLS[harness]] }];
    writeFileSync(script, JSON.stringify({ turns }));
    const { run } = await runRollout({ harness, datasetPath: envDataset, upstream: `sim:scripted:${script}`, samples: 1, timeoutSeconds: 240, evaluate: false }, context());
    const [session] = store.runs.sessions(run.id);
    const calls = store.calls.listBySession(session!.id, { withRaw: true });
    expect(calls.length).toBeGreaterThanOrEqual(2);
    // The second call's prompt carries the tool result: the env's prefix, not the base image's /usr.
    const toolResult = calls[1]!.raw!.clientRequest.toString();
    expect(toolResult).toContain('/opt/miniconda3/envs/testbed');
    expect(toolResult).not.toMatch(/python: (command )?not found/);
    expect(await docker.listContainers(runFilter(run.name))).toEqual([]);
  });

  it('a SWE-Gym-shaped and a SWE-smith-shaped task resolve with the oracle on Pi', async () => {
    const records = await loadDataset(familyDataset);
    expect(records.map((record) => record.task_set)).toEqual(['swe-gym', 'swe-smith']);
    const { run, counts } = await runRollout({ harness: 'pi', datasetPath: familyDataset, upstream: 'sim:oracle', samples: 1, timeoutSeconds: 300 }, context());
    expect(counts).toEqual({ completed: 2 });
    const sessions = store.runs.sessions(run.id);
    for (const record of records) {
      const session = sessions.find((row) => row.instanceId === record.instance_id);
      expect(session, record.instance_id).toMatchObject({ status: 'completed', reward: 1 });
      // Against the commit the agent started from: the gym image's "SWE-bench" commit (which changed
      // setup.cfg) stays out of the patch, and SWE-smith's patch is the bug reversed.
      expect(session!.patch).toBe(goldPatch(record));
    }
    expect(await docker.listContainers(runFilter(run.name))).toEqual([]);
  });

  it.each([
    ['an empty patch', '', 'empty_patch_instances'],
    ['a patch that does not fix the bug', fileDiff('NOTES.md', undefined, 'looked at it\n'), 'unresolved_instances'],
  ])('without the fix (%s) neither task resolves through polar eval swebench', async (_name, patch, counter) => {
    const predictions = path.join(dir, `preds-${counter}.jsonl`);
    writeFileSync(predictions, [GYM_ID, SMITH_ID].map((id) => JSON.stringify({ instance_id: id, model_name_or_path: 'nofix', model_patch: patch })).join('\n'));
    const reportDir = path.join(dir, `report-${counter}`);
    const summaryPath = path.join(dir, `summary-${counter}.json`);
    const code = await main(['node', 'polar', 'eval', 'swebench', '--dataset', familyDataset, '--predictions', predictions, '--report-dir', reportDir, '--report', summaryPath, '--run-id', `nofix-${counter}`, '--concurrency', '2']);
    expect(code).toBe(0);
    const { readFileSync } = await import('node:fs');
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as Record<string, unknown>;
    expect(summary).toMatchObject({ resolved_instances: 0, error_instances: 0, [counter]: 2 });
  });
});
