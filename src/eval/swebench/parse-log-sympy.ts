// parse_log_sympy (swebench v4.1.0): sympy bin/test --verbose output.
import { pythonSplit, pythonStrip } from './python-text.js';
import type { TestStatusMap } from './test-status.js';

// Upstream: re.findall(r"(_*) (.*)\.py:(.*) (_*)", log); `.` never crosses a newline.
const failureHeader = /(_*) ([^\n]*)\.py:([^\n]*) (_*)/g;

/**
 * Failure headers `____ sympy/x/tests/test_y.py:test_z ____` give `sympy/x/tests/test_y.py:test_z`
 * → FAILED; then each stripped line starting `test_` and ending ` E`, ` F` or ` ok` maps its first
 * token to ERROR, FAILED or PASSED. Other verbose marks (f, X, s, w, T) are not read.
 */
export function parseLogSympy(log: string): TestStatusMap {
  const statusMap: TestStatusMap = new Map();
  for (const match of log.matchAll(failureHeader)) {
    statusMap.set(`${match[2]!}.py:${match[3]!}`, 'FAILED');
  }
  for (const rawLine of log.split('\n')) {
    const line = pythonStrip(rawLine);
    if (!line.startsWith('test_')) continue;
    const id = pythonSplit(line)[0]!;
    if (line.endsWith(' E')) statusMap.set(id, 'ERROR');
    if (line.endsWith(' F')) statusMap.set(id, 'FAILED');
    if (line.endsWith(' ok')) statusMap.set(id, 'PASSED');
  }
  return statusMap;
}
