// Packaging of python/: the offline install python/README.md documents works in a fresh venv of Debian's
// python3 (pip 23, setuptools 66, no index), installs every module and py.typed, and the package and the
// Python example pass `mypy --strict` for Python 3.9 (Debian's mypy).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientVenv, DEBIAN_MYPY, PYTHON_DIR, pythonSkipReason, REPO, run } from './debian-python.js';

const skip = pythonSkipReason({ venv: true, mypy: true });

describe.skipIf(skip !== undefined)('python/ package (Debian python3, offline)', () => {
  let dir: string;
  let python: string;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'polar-python-package-'));
    python = await createClientVenv(dir);
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs offline into a fresh venv, with py.typed, importable from outside the checkout', async () => {
    const probe = [
      'import importlib.resources, json, polar_rollout, polar_rollout.client',
      'files = importlib.resources.files("polar_rollout")',
      'print(json.dumps({"file": polar_rollout.__file__, "version": polar_rollout.__version__, "typed": files.joinpath("py.typed").is_file(), "all": sorted(polar_rollout.__all__)}))',
    ].join('\n');
    const { output } = await run(python, ['-c', probe], { PYTHONPATH: '' });
    const found = JSON.parse(output) as { file: string; version: string; typed: boolean; all: string[] };
    expect(found.file.startsWith(path.join(dir, 'venv'))).toBe(true);
    expect(found.typed).toBe(true);
    expect(found.all).toEqual(expect.arrayContaining(['PolarClient', 'PolarError', 'InvalidRequest', 'Unauthorized', 'NotFound', 'Conflict', 'PayloadTooLarge', 'ServerError', 'ConnectionLost', 'Batch', 'ResultsPage', 'Group', 'Event']));
    const { output: pip } = await run(python, ['-m', 'pip', 'show', '-f', 'polar-rollout', '--disable-pip-version-check']);
    for (const module of ['client', 'errors', 'retry', 'transport', 'batch', 'results', 'groups', 'events']) expect(pip).toContain(`polar_rollout/${module}.py`);
    expect(pip).toContain('polar_rollout/py.typed');
  });

  it('type-checks with mypy --strict for Python 3.9 (the package and examples/async_grpo.py)', async () => {
    const files = [path.join(PYTHON_DIR, 'polar_rollout'), path.join(REPO, 'examples', 'async_grpo.py')];
    const { code, output } = await run(DEBIAN_MYPY, ['--python-version', '3.9', '--strict', '--cache-dir', '/dev/null', ...files], { MYPYPATH: PYTHON_DIR }, false);
    expect(output).toMatch(/^Success: no issues found/m);
    expect(code).toBe(0);
  }, 120_000);
});
