import { describe, expect, it } from 'vitest';
import { gradeInstance } from '../../../src/eval/swebench/grade-instance.js';

// Table rows infer unions of object shapes with optional keys; keep only the present entries.
const map = (entries: Readonly<Record<string, string | undefined>>) =>
  new Map(Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined));

describe('gradeInstance (v4.1.0 rules)', () => {
  it.each([
    {
      name: 'all pass → FULL',
      statusMap: { f1: 'PASSED', p1: 'PASSED', p2: 'XFAIL' },
      f2p: ['f1'], p2p: ['p1', 'p2'],
      expected: { f2pSuccess: ['f1'], f2pFailure: [], p2pSuccess: ['p1', 'p2'], p2pFailure: [], f2pRate: 1, p2pRate: 1, resolution: 'RESOLVED_FULL' },
    },
    {
      name: 'a missing F2P test is a failure',
      statusMap: { p1: 'PASSED' },
      f2p: ['f1'], p2p: ['p1'],
      expected: { f2pSuccess: [], f2pFailure: ['f1'], p2pSuccess: ['p1'], p2pFailure: [], f2pRate: 0, p2pRate: 1, resolution: 'RESOLVED_NO' },
    },
    {
      name: 'a skipped F2P test drops out of the denominator',
      statusMap: { f1: 'PASSED', f2: 'SKIPPED', p1: 'PASSED' },
      f2p: ['f1', 'f2'], p2p: ['p1'],
      expected: { f2pSuccess: ['f1'], f2pFailure: [], p2pSuccess: ['p1'], p2pFailure: [], f2pRate: 1, p2pRate: 1, resolution: 'RESOLVED_FULL' },
    },
    {
      name: 'all F2P skipped → ratio 1 → FULL (v4 quirk)',
      statusMap: { f1: 'SKIPPED' },
      f2p: ['f1'], p2p: [],
      expected: { f2pSuccess: [], f2pFailure: [], p2pSuccess: [], p2pFailure: [], f2pRate: 1, p2pRate: 1, resolution: 'RESOLVED_FULL' },
    },
    {
      name: 'some F2P pass, P2P intact → PARTIAL (not resolved)',
      statusMap: { f1: 'PASSED', f2: 'FAILED', f3: 'ERROR', p1: 'PASSED' },
      f2p: ['f1', 'f2', 'f3'], p2p: ['p1'],
      expected: { f2pSuccess: ['f1'], f2pFailure: ['f2', 'f3'], p2pSuccess: ['p1'], p2pFailure: [], f2pRate: 1 / 3, p2pRate: 1, resolution: 'RESOLVED_PARTIAL' },
    },
    {
      name: 'F2P all pass but one P2P broke → NO',
      statusMap: { f1: 'PASSED', p1: 'PASSED', p2: 'ERROR' },
      f2p: ['f1'], p2p: ['p1', 'p2'],
      expected: { f2pSuccess: ['f1'], f2pFailure: [], p2pSuccess: ['p1'], p2pFailure: ['p2'], f2pRate: 1, p2pRate: 0.5, resolution: 'RESOLVED_NO' },
    },
    {
      name: 'a non-status token (e.g. from an old-style line) counts like SKIPPED',
      statusMap: { f1: 'AssertionError:', p1: 'PASSED' },
      f2p: ['f1'], p2p: ['p1'],
      expected: { f2pSuccess: [], f2pFailure: [], p2pSuccess: ['p1'], p2pFailure: [], f2pRate: 1, p2pRate: 1, resolution: 'RESOLVED_FULL' },
    },
    {
      name: 'empty lists → FULL',
      statusMap: {},
      f2p: [], p2p: [],
      expected: { f2pSuccess: [], f2pFailure: [], p2pSuccess: [], p2pFailure: [], f2pRate: 1, p2pRate: 1, resolution: 'RESOLVED_FULL' },
    },
    {
      name: 'duplicated ids are graded once per occurrence',
      statusMap: { f1: 'FAILED', p1: 'PASSED' },
      f2p: ['f1', 'f1'], p2p: ['p1', 'p1'],
      expected: { f2pSuccess: [], f2pFailure: ['f1', 'f1'], p2pSuccess: ['p1', 'p1'], p2pFailure: [], f2pRate: 0, p2pRate: 1, resolution: 'RESOLVED_NO' },
    },
  ])('$name', ({ statusMap, f2p, p2p, expected }) => {
    const grade = gradeInstance({ statusMap: map(statusMap), failToPass: f2p, passToPass: p2p });
    expect(grade.testsStatus).toEqual({
      FAIL_TO_PASS: { success: expected.f2pSuccess, failure: expected.f2pFailure },
      PASS_TO_PASS: { success: expected.p2pSuccess, failure: expected.p2pFailure },
      FAIL_TO_FAIL: { success: [], failure: [] },
      PASS_TO_FAIL: { success: [], failure: [] },
    });
    expect(grade.failToPassRate).toBe(expected.f2pRate);
    expect(grade.passToPassRate).toBe(expected.p2pRate);
    expect(grade.resolution).toBe(expected.resolution);
    expect(grade.resolved).toBe(expected.resolution === 'RESOLVED_FULL');
  });

  it('fail_only: only a present FAILED fails; missing and ERROR succeed', () => {
    const grade = gradeInstance({
      statusMap: map({ f1: 'FAILED', f2: 'ERROR' }),
      failToPass: ['f1', 'f2', 'f3'],
      passToPass: ['p1'],
      evalType: 'fail_only',
    });
    expect(grade.testsStatus.FAIL_TO_PASS).toEqual({ success: ['f2', 'f3'], failure: ['f1'] });
    expect(grade.testsStatus.PASS_TO_PASS).toEqual({ success: ['p1'], failure: [] });
    expect(grade.resolution).toBe('RESOLVED_PARTIAL');
  });
});
