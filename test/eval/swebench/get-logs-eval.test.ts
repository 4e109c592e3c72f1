import { describe, expect, it } from 'vitest';
import { getLogsEval } from '../../../src/eval/swebench/get-logs-eval.js';
import { parseLogPytest } from '../../../src/eval/swebench/parse-log-pytest.js';
import { readFixture } from './read-fixture.js';

const start = "+ : '>>>>> Start Test Output'";
const end = "+ : '>>>>> End Test Output'";

describe('getLogsEval', () => {
  it('parses only the marked section', () => {
    const log = ['PASSED before::marker', start, 'PASSED inside::t', end, 'FAILED after::marker'].join('\n');
    const result = getLogsEval(log, parseLogPytest);
    expect(result).toEqual({ found: true, source: 'section', statusMap: new Map([['inside::t', 'PASSED']]) });
  });

  it('falls back to the whole log when the section yields no test', () => {
    const log = ['PASSED printed::early', start, 'no summary here', end].join('\n');
    expect(getLogsEval(log, parseLogPytest)).toEqual({ found: true, source: 'whole-log', statusMap: new Map([['printed::early', 'PASSED']]) });
  });

  it('reports found with an empty map when nothing parses anywhere', () => {
    expect(getLogsEval([start, 'collected 0 items', end].join('\n'), parseLogPytest)).toEqual({ found: true, source: 'whole-log', statusMap: new Map() });
  });

  it.each([
    ['>>>>> Patch Apply Failed'],
    ['>>>>> Reset Failed'],
    ['>>>>> Tests Errored'],
    ['>>>>> Tests Timed Out'],
  ])('%s anywhere means no status map', (code) => {
    const log = [start, 'PASSED a::b', end, code].join('\n');
    expect(getLogsEval(log, parseLogPytest)).toEqual({ found: false, reason: 'bad-code', badCodes: [code] });
  });

  it.each([
    ['no end marker', [start, 'PASSED a::b'].join('\n')],
    ['no start marker', ['PASSED a::b', end].join('\n')],
    ['an eval script that never started', 'Error response from daemon: container not running'],
  ])('%s means no status map', (_name, log) => {
    expect(getLogsEval(log, parseLogPytest)).toEqual({ found: false, reason: 'missing-markers' });
  });

  it('uses the text between the first start marker and the next end marker', () => {
    const log = [start, 'PASSED first::t', end, start, 'PASSED second::t', end].join('\n');
    expect(getLogsEval(log, parseLogPytest)).toMatchObject({ statusMap: new Map([['first::t', 'PASSED']]) });
  });

  it('reads the xarray fixture section', () => {
    const result = getLogsEval(readFixture('xarray-pytest.log'), parseLogPytest);
    expect(result.found && result.source).toBe('section');
    expect(result.found && result.statusMap.size).toBe(12);
  });
});
