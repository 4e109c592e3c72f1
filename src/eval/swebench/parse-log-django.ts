// parse_log_django (swebench v4.1.0): Django runtests.py --verbosity 2 output.
import { PYTHON_WHITESPACE_CLASS as S, beforeFirst, beforeLast, pythonSplit, pythonStrip } from './python-text.js';
import type { TestStatusMap } from './test-status.js';

const passSuffixes = [' ... ok', ' ... OK', ' ...  OK'] as const;

// django__django-7188 only: a migration notice precedes the result on the same line.
const django7188Prefix = 'Applying sites.0002_alter_domain_unique...test_no_migrations';

// Upstream's three re.MULTILINE patterns for a test whose `ok` is pushed to the next line by a
// long print. Python `^`/`$` (multiline) become newline lookarounds, `.` becomes [^\n] and
// `(?s:.*?)` becomes [\s\S]*? so that the JavaScript engine matches exactly the same spans.
const lineStart = '(?<![^\\n])';
const lineEnd = '(?![^\\n])';
const interruptedOkPatterns = [
  `${lineStart}([^\\n]*?)${S}\\.\\.\\.${S}Testing against Django installed in ([\\s\\S]*?) silenced\\)\\.\\nok${lineEnd}`,
  `${lineStart}([^\\n]*?)${S}\\.\\.\\.${S}Internal Server Error: \\/([^\\n]*)\\/\\nok${lineEnd}`,
  `${lineStart}([^\\n]*?)${S}\\.\\.\\.${S}System check identified no issues \\(0 silenced\\)\\nok${lineEnd}`,
].map((source) => new RegExp(source, 'g'));

/**
 * A test id is the text before ` ... ` on its line (`test_x (app.tests.Class)`, or the first
 * docstring line for tests that have one). `ok`/`OK` → PASSED, `skipped` → SKIPPED, `FAIL` and
 * `FAIL: id` headers → FAILED, `ERROR` and `ERROR: id` headers → ERROR, and a line starting with
 * `ok` credits the most recent ` ... ` line. Later statuses overwrite earlier ones.
 */
export function parseLogDjango(log: string): TestStatusMap {
  const statusMap: TestStatusMap = new Map();
  let previousTest: string | undefined;
  for (const rawLine of log.split('\n')) {
    let line = pythonStrip(rawLine);

    if (line.includes('--version is equivalent to version')) {
      statusMap.set('--version is equivalent to version', 'PASSED');
    }
    if (line.includes(' ... ')) previousTest = beforeFirst(line, ' ... ');

    for (const suffix of passSuffixes) {
      if (!line.endsWith(suffix)) continue;
      if (line.startsWith(django7188Prefix)) {
        const at = line.indexOf('...');
        line = pythonStrip(line.slice(at + 3));
      }
      statusMap.set(beforeLast(line, suffix), 'PASSED');
      break;
    }
    if (line.includes(' ... skipped')) statusMap.set(beforeFirst(line, ' ... skipped'), 'SKIPPED');
    if (line.endsWith(' ... FAIL')) statusMap.set(beforeFirst(line, ' ... FAIL'), 'FAILED');
    if (line.startsWith('FAIL:')) setHeader(statusMap, line, 'FAILED');
    if (line.endsWith(' ... ERROR')) statusMap.set(beforeFirst(line, ' ... ERROR'), 'ERROR');
    if (line.startsWith('ERROR:')) setHeader(statusMap, line, 'ERROR');

    if (line.startsWith('ok') && previousTest !== undefined) statusMap.set(previousTest, 'PASSED');
  }

  for (const pattern of interruptedOkPatterns) {
    for (const match of log.matchAll(pattern)) statusMap.set(match[1]!, 'PASSED');
  }
  return statusMap;
}

/** `FAIL: test_x (app.tests.Class)` → the second whitespace token. Upstream raises if there is none. */
function setHeader(statusMap: TestStatusMap, line: string, status: 'FAILED' | 'ERROR'): void {
  const id = pythonSplit(line)[1];
  if (id !== undefined) statusMap.set(pythonStrip(id), status);
}
