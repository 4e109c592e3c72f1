// parse_log_seaborn (swebench v4.1.0): FAILED summary lines plus PASSED lines in either position.
import { pythonSplit } from './python-text.js';
import type { TestStatusMap } from './test-status.js';

/**
 * `FAILED id ...` → FAILED; otherwise a line containing ` PASSED ` whose second token is PASSED
 * maps its first token; otherwise `PASSED id` → PASSED. Other statuses are not read (as upstream).
 * Upstream raises on a bare `FAILED`/`PASSED` line; here such a line is skipped.
 */
export function parseLogSeaborn(log: string): TestStatusMap {
  const statusMap: TestStatusMap = new Map();
  for (const line of log.split('\n')) {
    if (line.startsWith('FAILED')) {
      const id = pythonSplit(line)[1];
      if (id !== undefined) statusMap.set(id, 'FAILED');
    } else if (line.includes(' PASSED ')) {
      const parts = pythonSplit(line);
      if (parts[1] === 'PASSED') statusMap.set(parts[0]!, 'PASSED');
    } else if (line.startsWith('PASSED')) {
      const id = pythonSplit(line)[1];
      if (id !== undefined) statusMap.set(id, 'PASSED');
    }
  }
  return statusMap;
}
