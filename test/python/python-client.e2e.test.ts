// The Python client against a real `polar serve` (sim:oracle upstream, the real Pi harness in Docker), and
// examples/async_grpo.py against the same server: python/tests/serve/test_serve_e2e.py, run with the
// package installed in a fresh venv the way python/README.md says. The Python side starts the server, kills
// it with -9 and restarts it; this side prepares the example task's image and the task rows.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../../src/config/paths.js';
import { instanceImageName } from '../../src/eval/swebench/instance-image-name.js';
import type { SwebenchRecord } from '../../src/eval/swebench/swebench-record.js';
import { buildExampleTaskImage, EXAMPLE_DATASET } from '../../src/rollout/build-example-task-image.js';
import type { ContainerRuntime } from '../../src/runtime/container-runtime.js';
import { dockerForTests, TEST_IMAGE } from '../runtime/docker-test-support.js';
import { createClientVenv, PYTHON_DIR, pythonSkipReason, REPO, runUnittest } from './debian-python.js';

const runtime: ContainerRuntime | undefined = await dockerForTests();
const skip = runtime === undefined ? 'no Docker' : pythonSkipReason({ venv: true });

describe.skipIf(skip !== undefined)('Python client against a real polar serve (Docker, real Pi, simulator)', () => {
  let dir: string;
  let python: string;
  let tasks: string;

  beforeAll(async () => {
    const base = JSON.parse(readFileSync(EXAMPLE_DATASET, 'utf8').trim()) as SwebenchRecord;
    const image = instanceImageName(base);
    await buildExampleTaskImage(runtime as ContainerRuntime, { baseImage: TEST_IMAGE, image, baseCommit: base.base_commit });
    dir = mkdtempSync(path.join(tmpdir(), 'polar-python-e2e-'));
    tasks = path.join(dir, 'tasks.jsonl');
    writeFileSync(tasks, [1, 2, 3, 4].map((n) => JSON.stringify({ ...base, instance_id: `polar-example__py-${n}`, image })).join('\n') + '\n');
    python = await createClientVenv(dir);
  }, 600_000);

  afterAll(() => {
    if (dir && process.env.POLAR_TEST_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
    else if (dir) console.log(`kept ${dir}`);
  });

  it('submit, pause/resume, groups across kill -9 + restart, results, cancel, events, errors, the example', async () => {
    const result = await runUnittest(python, path.join(PYTHON_DIR, 'tests', 'serve'), {
      PYTHONPATH: '',
      PYTHONDONTWRITEBYTECODE: '1',
      POLAR_HOME: resolveCacheDir(),
      POLAR_TEST_SERVE_COMMAND: JSON.stringify([process.execPath, path.join(REPO, 'bin', 'polar.js')]),
      POLAR_TEST_TASKS: tasks,
      POLAR_TEST_DIR: dir,
      POLAR_TEST_REPO: REPO,
      POLAR_TEST_EXPECT_PREFIX: path.join(dir, 'venv'),
    });
    expect(result.code, result.output).toBe(0);
    expect(result.skipped, result.output).toBe(0);
    expect(result.ran, result.output).toBe(9);
  }, 900_000);
});
