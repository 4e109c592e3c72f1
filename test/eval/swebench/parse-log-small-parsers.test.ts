// Table tests for the three small pytest variants: options, matplotlib, seaborn.
import { describe, expect, it } from 'vitest';
import { parseLogMatplotlib } from '../../../src/eval/swebench/parse-log-matplotlib.js';
import { parseLogPytestOptions } from '../../../src/eval/swebench/parse-log-pytest-options.js';
import { parseLogSeaborn } from '../../../src/eval/swebench/parse-log-seaborn.js';

describe('parseLogPytestOptions', () => {
  it.each([
    [
      'absolute path parameter keeps only its last segment',
      'PASSED tests/test_self.py::TestRunTC::test_relative_imports[/tmp/pytest-of-root/pytest-0/rel0/a]',
      [['tests/test_self.py::TestRunTC::test_relative_imports[/a]', 'PASSED']],
    ],
    ['"//" is left alone', 'PASSED t.py::u[//host/x]', [['t.py::u[//host/x]', 'PASSED']]],
    ['"*" is left alone', 'PASSED t.py::u[/a/*.py]', [['t.py::u[/a/*.py]', 'PASSED']]],
    [
      'ordinary parameters unchanged; FAILED message dropped',
      'FAILED tests/test_requests.py::TestRequests::test_invalid_url[MissingSchema-hiwpefhipowhefopw] - Err',
      [['tests/test_requests.py::TestRequests::test_invalid_url[MissingSchema-hiwpefhipowhefopw]', 'FAILED']],
    ],
    ['greedy option up to the last "]"', 'PASSED t.py::u[/a/b]extra]', [['t.py::u[/b]extra]', 'PASSED']]],
  ])('%s', (_name, log, expected) => {
    expect([...parseLogPytestOptions(log)]).toEqual(expected);
  });
});

describe('parseLogMatplotlib', () => {
  it.each([
    [
      'MouseButton names become numbers',
      'PASSED lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[MouseButton.LEFT-True]\n' +
        'FAILED lib/matplotlib/tests/test_widgets.py::test_click[MouseButton.RIGHT] - AssertionError',
      [
        ['lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[1-True]', 'PASSED'],
        ['lib/matplotlib/tests/test_widgets.py::test_click[3]', 'FAILED'],
      ],
    ],
    ['other statuses as pytest', 'XFAIL lib/a.py::t - reason\nSKIPPED [2] lib/a.py:3: no', [['lib/a.py::t', 'XFAIL'], ['[2]', 'SKIPPED']]],
  ])('%s', (_name, log, expected) => {
    expect([...parseLogMatplotlib(log)]).toEqual(expected);
  });
});

describe('parseLogSeaborn', () => {
  it.each([
    ['FAILED summary line', 'FAILED tests/test_core.py::TestVectorPlotter::test_x - AssertionError', [['tests/test_core.py::TestVectorPlotter::test_x', 'FAILED']]],
    ['PASSED summary line', 'PASSED tests/test_core.py::test_y', [['tests/test_core.py::test_y', 'PASSED']]],
    ['verbose "id PASSED [..%]" line', 'tests/test_core.py::test_z PASSED [ 50%]', [['tests/test_core.py::test_z', 'PASSED']]],
    ['" PASSED " not in second position', 'a b PASSED c', []],
    ['XFAIL, SKIPPED and ERROR are not read', 'XFAIL t::a\nSKIPPED [1] t.py:1: x\nERROR t::b', []],
    ['FAILED messages keep " - " (no rewrite): id is token 2', 'FAILED t::c[a - b] - x', [['t::c[a', 'FAILED']]],
  ])('%s', (_name, log, expected) => {
    expect([...parseLogSeaborn(log)]).toEqual(expected);
  });
});
