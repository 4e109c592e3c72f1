// Test statuses and status maps, as in swebench.harness.constants.TestStatus (v4.1.0).

/** The statuses the official parsers emit; iteration order matters (FAILED is checked first). */
export const TEST_STATUSES = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'] as const;

export type TestStatus = (typeof TEST_STATUSES)[number];

/**
 * Test id → status word, in first-seen order. Values are plain strings because the official
 * parsers store whatever token sits in the status position (e.g. `PASSEDx`, or `AssertionError:`
 * from an old-style line); grading treats anything but PASSED/XFAIL/FAILED/ERROR like SKIPPED.
 * A Map (not an object) so ids such as `constructor` or `__proto__` behave like any other.
 */
export type TestStatusMap = Map<string, string>;

/** A pure log parser: combined stdout+stderr text in, status map out. */
export type LogParser = (log: string) => TestStatusMap;

/** True if `line` starts with one of the status words (Python `any(line.startswith(x.value) ...)`). */
export function startsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((status) => line.startsWith(status));
}

/** True if `line` ends with one of the status words. */
export function endsWithStatus(line: string): boolean {
  return TEST_STATUSES.some((status) => line.endsWith(status));
}
