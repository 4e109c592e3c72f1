// parse_log_matplotlib (swebench v4.1.0): pytest summary lines with MouseButton enum names normalised.
import { pythonSplit } from './python-text.js';
import { startsWithStatus, type TestStatusMap } from './test-status.js';

/** Like parseLogPytest after replacing `MouseButton.LEFT` with `1` and `MouseButton.RIGHT` with `3`. */
export function parseLogMatplotlib(log: string): TestStatusMap {
  const statusMap: TestStatusMap = new Map();
  for (const rawLine of log.split('\n')) {
    let line = rawLine.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3');
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const tokens = pythonSplit(line);
    if (tokens.length <= 1) continue;
    statusMap.set(tokens[1]!, tokens[0]!);
  }
  return statusMap;
}
