// The Python trainer adapters and the fidelity check (python/tests/test_adapter_*.py, test_check_*.py), run with
// Debian's /usr/bin/python3 and the standard library's unittest: no venv, no installed package (PYTHONPATH).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PYTHON_DIR = fileURLToPath(new URL('../../python', import.meta.url));

function runUnittest(pattern: string): { status: number | null; output: string } {
  const done = spawnSync('/usr/bin/python3', ['-m', 'unittest', 'discover', '-s', 'tests', '-t', 'tests', '-p', pattern, '-v'], {
    cwd: PYTHON_DIR,
    env: { ...process.env, PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: '1' },
    encoding: 'utf8',
  });
  return { status: done.status, output: `${done.stdout}${done.stderr}` };
}

describe('python adapters (unittest)', () => {
  for (const pattern of ['test_adapter_*.py', 'test_check_*.py']) {
    it(`passes ${pattern}`, () => {
      const { status, output } = runUnittest(pattern);
      expect(output, output).toMatch(/^Ran \d+ tests? in/m);
      expect(output).not.toMatch(/^Ran 0 tests/m);
      expect(status, output).toBe(0);
      expect(output).toMatch(/^OK$/m);
    });
  }
});
