import { describe, expect, it } from 'vitest';
import { parseLogSympy } from '../../../src/eval/swebench/parse-log-sympy.js';
import { markedSection, readFixture } from './read-fixture.js';

describe('parseLogSympy', () => {
  it('reads bin/test --verbose output: failure headers first, then per-test lines', () => {
    const statusMap = parseLogSympy(markedSection(readFixture('sympy-bin-test.log')));
    expect([...statusMap]).toEqual([
      ['sympy/core/tests/test_basic.py:test_matches_basic', 'FAILED'],
      ['sympy/core/tests/test_basic.py:test_equality', 'FAILED'],
      ['test__aresame', 'PASSED'],
      ['test_structure', 'PASSED'],
      ['test_immutable', 'PASSED'],
      ['test_equality', 'FAILED'],
      ['test_printmethod', 'PASSED'],
      // Not read: `test_matches_basic E   [FAIL]` and `test_latex_functions ok   [OK]` (the file
      // verdict ends the line), `f` (xfail) and `w` (slow, skipped).
    ]);
  });

  it.each([
    ['E → ERROR', 'test_x E', [['test_x', 'ERROR']]],
    ['leading spaces are stripped', '   test_x ok   ', [['test_x', 'PASSED']]],
    ['only lines starting test_', 'xtest_x ok', []],
    ['a header needs the space before the trailing underscores', '__ a/b.py:c__', []],
  ])('%s', (_name, log, expected) => {
    expect([...parseLogSympy(log)]).toEqual(expected);
  });
});
