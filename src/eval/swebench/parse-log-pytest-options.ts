// parse_log_pytest_options (swebench v4.1.0): pytest summary lines, with absolute-path parameters shortened.
import { pythonSplit } from './python-text.js';
import { startsWithStatus, type TestStatusMap } from './test-status.js';

const optionPattern = /([^\n]*?)\[([^\n]*)\]/;

/**
 * Like parseLogPytest, but an id `name[option]` whose option starts with a single `/` and has no
 * `*` keeps only `/` plus the option's last path segment (requests, pylint, pydicom ids).
 */
export function parseLogPytestOptions(log: string): TestStatusMap {
  const statusMap: TestStatusMap = new Map();
  for (const rawLine of log.split('\n')) {
    if (!startsWithStatus(rawLine)) continue;
    const line = rawLine.startsWith('FAILED') ? rawLine.replaceAll(' - ', ' ') : rawLine;
    const tokens = pythonSplit(line);
    if (tokens.length <= 1) continue;
    const id = tokens[1]!;
    const match = optionPattern.exec(id);
    let testName = id;
    if (match) {
      const main = match[1]!;
      let option = match[2]!;
      if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) {
        option = '/' + option.split('/').at(-1)!;
      }
      testName = `${main}[${option}]`;
    }
    statusMap.set(testName, tokens[0]!);
  }
  return statusMap;
}
