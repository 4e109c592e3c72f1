// parse_log_pytest_options (swebench v4.1.0): pytest summary lines, with absolute-path parameters shortened.
import { parsePytestSummary } from './parse-log-pytest.js';
import type { TestStatusMap } from './test-status.js';

const optionPattern = /([^\n]*?)\[([^\n]*)\]/;

/**
 * Like parseLogPytest, but an id `name[option]` whose option starts with a single `/` and has no
 * `*` keeps only `/` plus the option's last path segment (requests, pylint, pydicom ids).
 */
export function parseLogPytestOptions(log: string): TestStatusMap {
  return parsePytestSummary(log, shortenOption);
}

function shortenOption(id: string): string {
  const match = optionPattern.exec(id);
  if (!match) return id;
  const main = match[1]!;
  let option = match[2]!;
  if (option.startsWith('/') && !option.startsWith('//') && !option.includes('*')) {
    option = '/' + option.split('/').at(-1)!;
  }
  return `${main}[${option}]`;
}
