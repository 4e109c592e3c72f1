import { describe, expect, it } from 'vitest';
import { parseLogPytestV2 } from '../../../src/eval/swebench/parse-log-pytest-v2.js';
import { markedSection, readFixture } from './read-fixture.js';

describe('parseLogPytestV2', () => {
  it('strips [Nm colour codes and control characters from a coloured scikit-learn run', () => {
    const statusMap = parseLogPytestV2(markedSection(readFixture('sklearn-pytest-ansi.log')));
    const t = 'sklearn/linear_model/tests/test_ridge.py::';
    expect([...statusMap]).toEqual([
      [`${t}test_ridge[svd]`, 'PASSED'],
      [`${t}test_ridge_sample_weights`, 'PASSED'],
      ['[1]', 'SKIPPED'],
      [`${t}test_ridge_cv[cholesky]`, 'FAILED'],
      // ESC[0;31m is not a `[digits]m` code, so "[0;31mFAILED ..." is not read (upstream quirk).
      // The tab inside the id is a control character and is deleted, joining the two parts.
      [`${t}test_ridge_fit_interceptwith_tab`, 'ERROR'],
    ]);
  });

  it('reads old-style "id STATUS" lines of astropy 0.x-1.3 (classic console style)', () => {
    const statusMap = parseLogPytestV2(markedSection(readFixture('astropy-pytest-classic.log')));
    const t = 'astropy/io/fits/tests/test_header.py::';
    expect([...statusMap]).toEqual([
      [`${t}TestHeaderFunctions::test_card_constructor_default_args`, 'PASSED'],
      [`${t}TestHeaderFunctions::test_string_value_card`, 'PASSED'],
      [`${t}TestHeaderFunctions::test_fixable_non_standard_fits_card`, 'FAILED'],
    ]);
  });

  it.each([
    // v4.1.0 has no third "status anywhere in the line" branch (a later upstream commit added one).
    ['status followed by a progress column is not read', 'a.py::t PASSED [ 50%]', []],
    ['old style maps token 0 to token 1, even with more tokens', 'E   AssertionError: x FAILED', [['E', 'AssertionError:']]],
    ['a lone status word is skipped', 'PASSED', []],
    ['unicode digits count as \\d (Python re semantics)', '\u001b[\u0663mPASSED x', [['x', 'PASSED']]],
  ])('%s', (_name, log, expected) => {
    expect([...parseLogPytestV2(log)]).toEqual(expected);
  });
});
