// The polar_rollout client's own unittest suite (python/tests/client), run with Debian's python3 on the
// sources: errors, retry decisions and retries over a real socket, NDJSON pages, group iteration, SSE.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEBIAN_PYTHON, PYTHON_DIR, pythonSkipReason, runUnittest } from './debian-python.js';

const skip = pythonSkipReason();

describe.skipIf(skip !== undefined)('polar_rollout client unit tests (Python unittest)', () => {
  it('pass, none skipped', async () => {
    const result = await runUnittest(DEBIAN_PYTHON, path.join(PYTHON_DIR, 'tests', 'client'), { PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: '1' });
    expect(result.code, result.output).toBe(0);
    expect(result.ran, result.output).toBeGreaterThanOrEqual(40);
    expect(result.skipped, result.output).toBe(0);
  });
});
