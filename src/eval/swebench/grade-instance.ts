// v4.1.0 grading (get_eval_tests_report + get_resolution_status): F2P/P2P success and failure lists.
import type { EvalType } from './swebench-record.js';
import type { TestStatusMap } from './test-status.js';

export interface TestList {
  readonly success: string[];
  readonly failure: string[];
}

/** `tests_status` of report.json; FAIL_TO_FAIL and PASS_TO_FAIL stay empty (upstream never fills them). */
export interface TestsStatus {
  readonly FAIL_TO_PASS: TestList;
  readonly PASS_TO_PASS: TestList;
  readonly FAIL_TO_FAIL: TestList;
  readonly PASS_TO_FAIL: TestList;
}

export type ResolutionStatus = 'RESOLVED_FULL' | 'RESOLVED_PARTIAL' | 'RESOLVED_NO';

export interface InstanceGrade {
  readonly testsStatus: TestsStatus;
  /** success / (success + failure), 1 when both lists are empty. */
  readonly failToPassRate: number;
  readonly passToPassRate: number;
  readonly resolution: ResolutionStatus;
  /** True only for RESOLVED_FULL. */
  readonly resolved: boolean;
}

export interface GradeInput {
  readonly statusMap: TestStatusMap;
  readonly failToPass: readonly string[];
  readonly passToPass: readonly string[];
  /** Default `pass_and_fail`. */
  readonly evalType?: EvalType;
}

/**
 * pass_and_fail: a test succeeds if its status is PASSED or XFAIL, fails if it is missing or
 * FAILED or ERROR, and otherwise (SKIPPED, or any other word) is in neither list, so it drops out
 * of the ratio. fail_only: a test fails only if present with FAILED; anything else succeeds.
 * FULL iff both ratios are 1; PARTIAL iff 0 < F2P < 1 and P2P is 1; otherwise NO.
 */
export function gradeInstance(input: GradeInput): InstanceGrade {
  const check = input.evalType === 'fail_only' ? checkFailOnly : checkPassAndFail;
  const failToPass = classify(input.failToPass, input.statusMap, check);
  const passToPass = classify(input.passToPass, input.statusMap, check);
  const failToPassRate = ratio(failToPass);
  const passToPassRate = ratio(passToPass);
  const resolution: ResolutionStatus =
    failToPassRate === 1 && passToPassRate === 1
      ? 'RESOLVED_FULL'
      : failToPassRate < 1 && failToPassRate > 0 && passToPassRate === 1
        ? 'RESOLVED_PARTIAL'
        : 'RESOLVED_NO';
  return {
    testsStatus: {
      FAIL_TO_PASS: failToPass,
      PASS_TO_PASS: passToPass,
      FAIL_TO_FAIL: { success: [], failure: [] },
      PASS_TO_FAIL: { success: [], failure: [] },
    },
    failToPassRate,
    passToPassRate,
    resolution,
    resolved: resolution === 'RESOLVED_FULL',
  };
}

type Verdict = 'success' | 'failure' | 'neither';

function checkPassAndFail(test: string, statusMap: TestStatusMap): Verdict {
  const status = statusMap.get(test);
  if (status === 'PASSED' || status === 'XFAIL') return 'success';
  if (status === undefined || status === 'FAILED' || status === 'ERROR') return 'failure';
  return 'neither';
}

function checkFailOnly(test: string, statusMap: TestStatusMap): Verdict {
  return statusMap.get(test) === 'FAILED' ? 'failure' : 'success';
}

function classify(tests: readonly string[], statusMap: TestStatusMap, check: typeof checkPassAndFail): TestList {
  const list: TestList = { success: [], failure: [] };
  for (const test of tests) {
    const verdict = check(test, statusMap);
    if (verdict !== 'neither') list[verdict].push(test);
  }
  return list;
}

function ratio(list: TestList): number {
  const total = list.success.length + list.failure.length;
  return total === 0 ? 1 : list.success.length / total;
}
