import { describe, expect, it } from 'vitest';
import { parseLogPytest } from '../../../src/eval/swebench/parse-log-pytest.js';
import { readFixture } from './read-fixture.js';

describe('parseLogPytest', () => {
  it('reads the -rA short summary of a real-shaped xarray run', () => {
    const statusMap = parseLogPytest(readFixture('xarray-pytest.log'));
    const t = 'xarray/tests/test_dataset.py::';
    expect([...statusMap]).toEqual([
      [`${t}TestDataset::test_repr`, 'PASSED'],
      [`${t}TestDataset::test_constructor[int64-1]`, 'PASSED'],
      [`${t}TestDataset::test_constructor[float-nan]`, 'PASSED'],
      [`${t}TestDataset::test_where`, 'PASSED'],
      // PASSED in the call phase, then ERROR at teardown: the later line wins, position is kept.
      [`${t}TestDataset::test_teardown_leak`, 'ERROR'],
      [`${t}test_weakref`, 'PASSED'],
      [`${t}test_deepcopy_obj_array`, 'PASSED'],
      // `SKIPPED [1] path:line: reason` maps the count token, as upstream does.
      ['[1]', 'SKIPPED'],
      [`${t}TestDataset::test_stack_sparse`, 'XFAIL'],
      [`${t}TestDataset::test_broken_fixture`, 'ERROR'],
      [`${t}TestDataset::test_where_drop`, 'FAILED'],
      // Whitespace inside a parametrised id cuts it (SWE-bench issue #290's truncated ids).
      [`${t}test_isin[test_elements0`, 'FAILED'],
    ]);
  });

  it.each([
    ['status word glued to text', 'PASSEDx tests/a.py::t', [['tests/a.py::t', 'PASSEDx']]],
    ['a bare status word is skipped', 'FAILED', []],
    ['XPASS is not a status', 'XPASS tests/a.py::t', []],
    ['indented lines are ignored', '  PASSED tests/a.py::t', []],
    ['CRLF endings: \\r is whitespace', 'PASSED tests/a.py::t\r', [['tests/a.py::t', 'PASSED']]],
    ['ERROR lines keep " - " (only FAILED lines are rewritten)', 'ERROR - tests/a.py::t - boom', [['-', 'ERROR']]],
    ['FAILED lines drop " - " before splitting', 'FAILED - tests/a.py::t - boom', [['tests/a.py::t', 'FAILED']]],
  ])('%s', (_name, log, expected) => {
    expect([...parseLogPytest(log)]).toEqual(expected);
  });

  it('keeps ids like __proto__ and constructor as ordinary keys', () => {
    const statusMap = parseLogPytest('PASSED __proto__\nFAILED constructor');
    expect(statusMap.get('__proto__')).toBe('PASSED');
    expect(statusMap.get('constructor')).toBe('FAILED');
    expect(statusMap.has('toString')).toBe(false);
  });
});
