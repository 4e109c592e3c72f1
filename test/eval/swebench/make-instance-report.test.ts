import { describe, expect, it } from 'vitest';
import { formatPythonJson } from '../../../src/eval/swebench/format-python-json.js';
import { parseDatasetText } from '../../../src/eval/swebench/load-dataset.js';
import { makeInstanceReport } from '../../../src/eval/swebench/make-instance-report.js';
import type { SwebenchRecord } from '../../../src/eval/swebench/swebench-record.js';
import { readFixture } from './read-fixture.js';

const [django, sympy] = parseDatasetText(readFixture('verified-sample.jsonl'), 'verified-sample.jsonl') as [SwebenchRecord, SwebenchRecord];
const sympyLog = readFixture('sympy-bin-test.log');

describe('makeInstanceReport', () => {
  it('grades the sympy fixture with the sympy parser: F2P passes, one P2P fails', () => {
    const { report, grade } = makeInstanceReport({ record: sympy, modelPatch: sympy.patch, testOutput: sympyLog });
    expect(report).toEqual({
      'sympy__sympy-20590': {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: false,
        tests_status: {
          FAIL_TO_PASS: { success: ['test_immutable'], failure: [] },
          PASS_TO_PASS: { success: ['test__aresame', 'test_structure'], failure: ['test_equality'] },
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    });
    expect(grade?.resolution).toBe('RESOLVED_NO');
  });

  it('resolves django__django-11099 on a passing run', () => {
    const testOutput = [
      "+ : '>>>>> Start Test Output'",
      'test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests) ... ok',
      'test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests) ... ok',
      'test_help_text (auth_tests.test_validators.MinimumLengthValidatorTest) ... ok',
      "+ : '>>>>> End Test Output'",
    ].join('\n');
    const { entry } = makeInstanceReport({ record: django, modelPatch: django.patch, testOutput });
    expect(entry.resolved).toBe(true);
    expect(entry.tests_status?.PASS_TO_PASS.success).toEqual(['test_help_text (auth_tests.test_validators.MinimumLengthValidatorTest)']);
  });

  it('a bad code gives patch_successfully_applied false and no tests_status', () => {
    const { report, logsEval } = makeInstanceReport({ record: sympy, modelPatch: 'x', testOutput: sympyLog + '\n>>>>> Tests Errored' });
    expect(report).toEqual({ 'sympy__sympy-20590': { patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false } });
    expect(logsEval).toEqual({ found: false, reason: 'bad-code', badCodes: ['>>>>> Tests Errored'] });
  });

  it('a null patch only sets patch_is_None', () => {
    expect(makeInstanceReport({ record: sympy, modelPatch: null, testOutput: sympyLog }).report).toEqual({
      'sympy__sympy-20590': { patch_is_None: true, patch_exists: false, patch_successfully_applied: false, resolved: false },
    });
  });

  it('uses the polar_spec parser and fail-only grading of a v5-style row', () => {
    const record: SwebenchRecord = { ...sympy, repo: 'local/js', eval_type: 'fail_only', log_parser: 'pytest', FAIL_TO_PASS: ['a::t'], PASS_TO_PASS: [] };
    const testOutput = "+ : '>>>>> Start Test Output'\nERROR a::t - boom\n+ : '>>>>> End Test Output'";
    expect(makeInstanceReport({ record, modelPatch: 'x', testOutput }).entry.resolved).toBe(true);
  });

  it('serialises like json.dumps(report, indent=4)', () => {
    const { report } = makeInstanceReport({ record: sympy, modelPatch: null, testOutput: '' });
    expect(formatPythonJson(report)).toBe(
      '{\n    "sympy__sympy-20590": {\n        "patch_is_None": true,\n        "patch_exists": false,\n' +
        '        "patch_successfully_applied": false,\n        "resolved": false\n    }\n}',
    );
  });
});
