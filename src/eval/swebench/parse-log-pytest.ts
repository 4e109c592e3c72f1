// parse_log_pytest (swebench v4.1.0): reads the `pytest -rA` short summary, `STATUS id [- message]`.
import { pythonSplit } from './python-text.js';
import { startsWithStatus, type TestStatusMap } from './test-status.js';

/**
 * Every line starting with a status word maps its second whitespace token to its first. On
 * FAILED lines `" - "` becomes `" "` first (that only matters for `FAILED - id`). Ids containing
 * whitespace, e.g. parameters like `[a - b]`, are cut at the first space, as upstream.
 */
export function parseLogPytest(log: string): TestStatusMap {
  return parsePytestSummary(log, (id) => id);
}

/** The parseLogPytest loop, with each test id passed through `testName` before it is stored. */
export function parsePytestSummary(log: string, testName: (id: string) => string): TestStatusMap {
  const statusMap: TestStatusMap = new Map();
  for (const rawLine of log.split('\n')) {
    if (!startsWithStatus(rawLine)) continue;
    const line = rawLine.startsWith('FAILED') ? rawLine.replaceAll(' - ', ' ') : rawLine;
    const tokens = pythonSplit(line);
    if (tokens.length <= 1) continue;
    statusMap.set(testName(tokens[1]!), tokens[0]!);
  }
  return statusMap;
}
